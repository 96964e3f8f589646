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
from studio.domain.errors import InputError, ProjectError, UsageError

P = ParamSpec("P")
R = TypeVar("R")


class ExitCode(IntEnum):
    OK = 0
    RUNTIME_ERROR = 1
    BAD_INPUT = 2


@contextmanager
def reported_errors() -> Iterator[None]:
    """Bad input or usage -> exit 2; a project that cannot do what was asked -> exit 1."""
    try:
        yield
    except (InputError, UsageError) as error:
        stderr_console().print(f"[bold red]error:[/] {escape(str(error))}", markup=True, highlight=False)
        raise typer.Exit(ExitCode.BAD_INPUT) from error
    except ProjectError as error:
        stderr_console().print(f"[bold red]error:[/] {escape(str(error))}", markup=True, highlight=False)
        raise typer.Exit(ExitCode.RUNTIME_ERROR) from error


def handles_errors(command: Callable[P, R]) -> Callable[P, R]:
    @wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with reported_errors():
            return command(*args, **kwargs)

    return wrapper
