"""The typer command line: parses arguments, calls services, prints results. No logic of its own."""
