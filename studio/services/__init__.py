"""Use cases shared by the CLI, the TUI and scripts, one family per subpackage.

`project.Project` is the facade on top; the families below it take an `EvaluationEngine` or a
`Database`, never a `Project`, so nothing underneath depends on the facade.
"""
