"""The project file as its users meet it: how long to wait for it, and who holds it meanwhile."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

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
