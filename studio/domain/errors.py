"""Errors the studio reports to people, with enough context to fix the cause.

They share one base, `StudioError`, so a front end can catch every error meant for a person in
one place and tell them from bugs. Each kind also keeps the built-in class it always had
(`ValueError` for bad input and usage, `RuntimeError` for a project that cannot be used), so code
that catches those keeps working.
"""

from __future__ import annotations


class StudioError(Exception):
    """An error meant for the person at the keyboard: its message says what is wrong and where."""


class InputError(StudioError, ValueError):
    """Bad input: names the file, the line (1-based, when known) and what is wrong."""

    def __init__(self, file: str, line: int | None, reason: str) -> None:
        self.file = file
        self.line = line
        self.reason = reason
        where = f"{file}:{line}" if line is not None else file
        super().__init__(f"{where}: {reason}")


class UsageError(StudioError, ValueError):
    """A request that contradicts itself or the project: an unknown name, a name already taken,
    options that do not go together. Asking differently fixes it."""


class ProjectError(StudioError, RuntimeError):
    """A project file the studio cannot work with as it stands: it cannot be opened, or a newer
    studio wrote it. The request may be fine; the file is the problem."""


class ProjectBusy(ProjectError):
    """Another process held the project file for longer than this one would wait. Nothing was
    changed; asking again later (or waiting longer) fixes it."""
