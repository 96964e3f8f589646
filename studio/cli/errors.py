"""Exit codes, and turning the studio's errors into one clear line on stderr."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import IntEnum
from functools import wraps
from typing import ParamSpec, TypeVar

import typer
from rich.markup import escape

from studio.cli.output import stderr_console
from studio.domain.errors import InputError, ProjectError, StudioError, UsageError

P = ParamSpec("P")
R = TypeVar("R")


class ExitCode(IntEnum):
    OK = 0
    RUNTIME_ERROR = 1
    BAD_INPUT = 2


# Asking differently fixes bad input and bad usage (2, as click does for a bad option); a project
# that cannot be used is a runtime failure (1). The first matching class wins.
EXIT_CODES: tuple[tuple[type[StudioError], ExitCode], ...] = (
    (InputError, ExitCode.BAD_INPUT),
    (UsageError, ExitCode.BAD_INPUT),
    (ProjectError, ExitCode.RUNTIME_ERROR),
)


def exit_code(error: StudioError) -> ExitCode:
    """The exit code of an error; a kind of StudioError not listed is a runtime error."""
    return next((code for kind, code in EXIT_CODES if isinstance(error, kind)), ExitCode.RUNTIME_ERROR)


@contextmanager
def reported_errors() -> Iterator[None]:
    """Print a studio error as one line on stderr and exit with its code; anything else is a bug
    and keeps its traceback."""
    try:
        yield
    except StudioError as error:
        stderr_console().print(f"[bold red]error:[/] {escape(str(error))}", markup=True, highlight=False)
        raise typer.Exit(exit_code(error)) from error


def handles_errors(command: Callable[P, R]) -> Callable[P, R]:
    @wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with reported_errors():
            return command(*args, **kwargs)

    return wrapper
