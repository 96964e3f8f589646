"""Errors the studio reports to people, with enough context to fix the cause.

They share one base, `StudioError`, so a front end can catch every error meant for a person in
one place and tell them from bugs. Each kind also keeps the built-in class it always had
(`ValueError` for bad input and usage, `RuntimeError` for a project that cannot be used), so code
that catches those keeps working.
"""

from __future__ import annotations

import errno

# What a write can fail with although the request was right: the medium is full or failed, or the
# file grew past what the system allows. (A closed pipe, EPIPE, is told apart: on stdout it is the
# reader's choice, not a failure.)
WRITE_FAILURES = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EFBIG})


QUOTED_LENGTH = 40  # characters of a value a message quotes


def quoted(value: str) -> str:
    """`value` quoted for a message (as `repr` quotes it), cut to its first `QUOTED_LENGTH`
    characters with an ellipsis and its length when longer: a message never carries a value of
    megabytes."""
    if len(value) <= QUOTED_LENGTH:
        return repr(value)
    return f"{value[:QUOTED_LENGTH]!r}… ({len(value)} characters)"


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
    """A project file the studio cannot work with as it stands: it cannot be opened or written (a
    full disk), or a newer studio wrote it. The request may be fine; the file is the problem."""


class ProjectBusy(ProjectError):
    """Another process held the project file for longer than this one would wait. Nothing was
    changed; asking again later (or waiting longer) fixes it."""


class OutputError(StudioError, RuntimeError):
    """Output the system would not take: a full disk, a device that failed, a pipe or FIFO whose
    reader went away. The request was fine and nothing was left half-written; asking again where
    there is room (or with a reader that stays) fixes it."""


class NoProject(UsageError):
    """The project file named does not exist, and the command only works on one that does (`studio
    init`, the imports and `studio demo` create one). Naming the right file fixes it."""


class NotAProject(UsageError):
    """The file named is not a studio project: another program's DuckDB database, or not DuckDB at
    all. The studio refused it without writing anything to it."""


class ProjectReadOnly(ProjectError):
    """A write to a project the studio opened read-only (the file or its folder is not writable,
    or reading only was asked for). Nothing was written."""


class CallsFailed(StudioError, RuntimeError):
    """A judge whose every call failed: the server was down, refused the key or answered errors.
    The failures are recorded with the run; running the judge again asks those calls again."""


class TeamUnreachable(StudioError, RuntimeError):
    """The team's PostgreSQL server cannot be reached (offline, stopped, refused the login): the
    project works on, its events wait for the next sync."""


class TeamRefused(StudioError, RuntimeError):
    """The team's server refused what was asked (a privilege the role has not, a schema the studio
    does not know): the message says which."""
