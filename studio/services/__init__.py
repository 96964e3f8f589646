"""Use cases (import, list, build the sample project, …) shared by the CLI, the TUI and scripts."""
