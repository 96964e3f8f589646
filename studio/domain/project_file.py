"""The project file as its users meet it: how long to wait for it, and who holds it meanwhile."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypedDict

DEFAULT_WAIT_SECONDS = 30.0


@dataclass(frozen=True)
class LockHolder:
    """Who holds a project file, as its lock-info record says (or DuckDB's message, for a program
    that is not the studio)."""

    pid: int | None
    command: str
    since: str | None = None

    def describe(self) -> str:
        who = f"PID {self.pid}" if self.pid is not None else "another process"
        return f"{who} ({self.command})" if self.command else who


WaitNotice = Callable[[LockHolder], None]


class SampleSetAside(TypedDict):
    """What `demo --rebuild` drops of a sample a person wrote into, and where the copy it kept is."""

    dropped: list[str]  # each kind of write since the sample was built: "label (3 times)", "12 label events"
    copy: str | None  # the old file, kept beside it (None: nothing to drop, no copy)
