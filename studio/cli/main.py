"""The `studio` program (`python -m studio` too).

`studio --version` is answered before the command line is built: typer, rich and the typed
parameters cost several times the answer (docs/design.md#6-performance-budgets: the version within
1.5x `python -c "import duckdb"`). Output it cannot write ends as any command's does (see
`cli/errors.py`). Everything else is the command tree of `cli/app.py`.
"""

from __future__ import annotations

import sys


def run() -> None:
    """The `studio` program's entry point."""
    if sys.argv[1:] == ["--version"]:
        sys.exit(print_version())
    from studio.cli.app import run as run_command_line

    run_command_line()


def print_version() -> int:
    """`studio --version`: the line the command line's own `--version` prints, and its exit status."""
    from studio import installed_version

    try:
        sys.stdout.write(f"studio {installed_version()}\n")
        sys.stdout.flush()
    except OSError as failed:
        return failed_output(failed)
    return 0


def failed_output(error: OSError) -> int:
    """The exit status of a command whose output failed with `error`, said as every command says it."""
    import typer

    from studio.cli.errors import reported_errors

    try:
        with reported_errors():
            raise error
    except typer.Exit as done:
        return int(done.exit_code)
    return 1  # reported_errors always ends the command; this keeps the type checker sure of it
