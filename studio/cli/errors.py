"""Exit codes, and turning the studio's errors into one clear line on stderr.

Output that cannot be written ends a command as Unix tools end: a full disk or a failing device
(`> /dev/full`) gives one line on stderr and exit 1; a reader that closed stdout's pipe
(`studio list | head -1`) ends the command quietly with 141, the status a shell reports for a
tool that SIGPIPE stopped, so `set -o pipefail` scripts see what they see for `cat` or `grep`.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from enum import IntEnum
from functools import wraps
from typing import ParamSpec, TypeVar

import typer
from rich.markup import escape

from studio.cli.output import flush_stdout, silence_stdout, stderr_console
from studio.domain.errors import (
    WRITE_FAILURES,
    CallsFailed,
    InputError,
    OutputError,
    ProjectError,
    StudioError,
    UsageError,
)

P = ParamSpec("P")
R = TypeVar("R")


class ExitCode(IntEnum):
    OK = 0
    RUNTIME_ERROR = 1
    BAD_INPUT = 2
    READER_GONE = 128 + signal.SIGPIPE


# Asking differently fixes bad input and bad usage (2, as click does for a bad option); a project
# that cannot be used, output the system would not take or a judge whose every call failed is a
# runtime failure (1). The first matching class wins.
EXIT_CODES: tuple[tuple[type[StudioError], ExitCode], ...] = (
    (InputError, ExitCode.BAD_INPUT),
    (UsageError, ExitCode.BAD_INPUT),
    (ProjectError, ExitCode.RUNTIME_ERROR),
    (OutputError, ExitCode.RUNTIME_ERROR),
    (CallsFailed, ExitCode.RUNTIME_ERROR),
)


def exit_code(error: StudioError) -> ExitCode:
    """The exit code of an error; a kind of StudioError not listed is a runtime error."""
    return next((code for kind, code in EXIT_CODES if isinstance(error, kind)), ExitCode.RUNTIME_ERROR)


@contextmanager
def reported_errors() -> Iterator[None]:
    """Print a studio error as one line on stderr and exit with its code; end quietly when stdout's
    reader has gone, and in one line when a write failed for want of room (see the module's
    docstring); anything else is a bug and keeps its traceback."""
    try:
        yield
        flush_stdout()  # what stdout still buffers fails here, inside the guard, not at exit
    except StudioError as error:
        if isinstance(error, OutputError):
            silence_stdout()
        _say(str(error))
        raise typer.Exit(exit_code(error)) from error
    except BrokenPipeError as error:
        silence_stdout()
        raise typer.Exit(ExitCode.READER_GONE) from error
    except OSError as error:
        if error.errno not in WRITE_FAILURES:
            raise
        silence_stdout()
        _say(f"cannot write {error.filename or 'the output'}: {error.strerror or error}")
        raise typer.Exit(ExitCode.RUNTIME_ERROR) from error


def _say(message: str) -> None:
    """One error line on stderr; a stderr that cannot take it leaves the exit status to tell."""
    with suppress(OSError):
        stderr_console().print(f"[bold red]error:[/] {escape(message)}", markup=True, highlight=False)


def handles_errors(command: Callable[P, R]) -> Callable[P, R]:
    @wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with reported_errors():
            return command(*args, **kwargs)

    return wrapper
