"""Errors the studio reports to people, with enough context to fix the cause."""

from __future__ import annotations


class InputError(ValueError):
    """Bad input: names the file, the line (1-based, when known) and what is wrong."""

    def __init__(self, file: str, line: int | None, reason: str) -> None:
        self.file = file
        self.line = line
        self.reason = reason
        where = f"{file}:{line}" if line is not None else file
        super().__init__(f"{where}: {reason}")


class ProjectError(RuntimeError):
    """A request the project cannot satisfy as it stands (unknown name, name taken, …)."""


class UsageError(ValueError):
    """A request that contradicts itself or the project (a name taken, an unknown name, …)."""
