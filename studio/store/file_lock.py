"""Taking turns on a project file: one process writes at a time, the others wait and say for whom.

DuckDB lets one process at a time open a file for writing and refuses the others at once. The
studio puts its own advisory lock in front (`flock` on `<project>.lock`), which every studio
process takes before it opens the file and gives back as soon as it closes it, so a waiting
process is never refused by DuckDB. The holder writes who it is (pid, command line, since when)
into the lock file, for the waiting ones to tell their user. Within one process every Database
on the same file shares one lock: DuckDB shares the file between a process's connections.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from studio.domain.errors import ProjectBusy
from studio.domain.project_file import LockHolder, WaitNotice

POLL_SECONDS = 0.05
_DUCKDB_HOLDER = re.compile(r"Conflicting lock is held in (?P<program>.*?) \(PID (?P<pid>\d+)\)")


def lock_path(project: str) -> Path:
    return Path(project + ".lock")


def wanted_path(project: str) -> Path:
    """Touched by a process that finds the file taken: a holder that keeps the file while idle
    (the TUI) gives it up when it sees this change."""
    return Path(project + ".lock.wanted")


def announce_wait(project: str) -> None:
    with contextlib.suppress(OSError):  # a read-only folder: the holder gives the file up when idle anyway
        wanted_path(project).write_text(str(os.getpid()), encoding="utf-8")


def wanted_since(project: str, moment: float) -> bool:
    """Has a process asked for the file since `moment` (time.time())?"""
    try:
        return wanted_path(project).stat().st_mtime >= moment
    except OSError:
        return False


def this_command() -> str:
    """This process's command line as its user typed it (program name without its folder)."""
    argv = [Path(sys.argv[0]).name if sys.argv else "python", *sys.argv[1:]]
    line = " ".join(argv)
    return line if len(line) <= 200 else line[:199] + "…"


def read_holder(project: str) -> LockHolder | None:
    try:
        record = json.loads(lock_path(project).read_text(encoding="utf-8") or "null")
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict):
        return None
    pid = record.get("pid")
    return LockHolder(pid if isinstance(pid, int) else None, str(record.get("command") or ""), record.get("since"))


def holder_from_duckdb(message: str) -> LockHolder:
    """The holder DuckDB names in its lock error (a program outside the studio holds the file)."""
    found = _DUCKDB_HOLDER.search(message)
    if found is None:
        return LockHolder(None, "")
    return LockHolder(int(found["pid"]), Path(found["program"]).name)


class _Held:
    """The process's hold on one project file: an open lock file and how many users share it."""

    def __init__(self, descriptor: int) -> None:
        self.descriptor = descriptor
        self.users = 0


_registry: dict[str, _Held] = {}
_registry_lock = threading.Lock()


class ProjectLock:
    """The studio's turn on one project file (not re-entrant: acquire, then release once)."""

    def __init__(self, project: str) -> None:
        self.project = project
        self.key = os.path.realpath(project)
        self.held = False

    def acquire(self, wait: float, notice: WaitNotice | None = None) -> None:
        """Take the file, waiting up to `wait` seconds for its holder; `notice` hears whom we
        wait for, once. Raises ProjectBusy when the wait runs out."""
        deadline = time.monotonic() + wait
        told = False
        while not self.try_acquire():
            holder = read_holder(self.project) or LockHolder(None, "")
            if not told:
                if wait > 0:  # a need, not a probe
                    announce_wait(self.project)
                if notice is not None:
                    notice(holder)
                told = True
            if time.monotonic() >= deadline:
                raise busy(self.project, holder, wait)
            time.sleep(POLL_SECONDS)

    def try_acquire(self) -> bool:
        if self.held:
            return True
        with _registry_lock:
            held = _registry.get(self.key)
            if held is None:
                descriptor = os.open(lock_path(self.project), os.O_RDWR | os.O_CREAT, 0o644)
                try:
                    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(descriptor)
                    return False
                _write_holder(descriptor)
                held = _registry[self.key] = _Held(descriptor)
            held.users += 1
            self.held = True
            return True

    def release(self) -> None:
        if not self.held:
            return
        self.held = False
        with _registry_lock:
            held = _registry[self.key]
            held.users -= 1
            if held.users == 0:
                del _registry[self.key]
                os.ftruncate(held.descriptor, 0)  # no stale record names a process that left
                fcntl.flock(held.descriptor, fcntl.LOCK_UN)
                os.close(held.descriptor)


def _write_holder(descriptor: int) -> None:
    record = {"pid": os.getpid(), "command": this_command(), "since": datetime.now(UTC).isoformat(timespec="seconds")}
    os.ftruncate(descriptor, 0)
    os.pwrite(descriptor, json.dumps(record).encode("utf-8"), 0)


def busy(project: str, holder: LockHolder, wait: float) -> ProjectBusy:
    return ProjectBusy(
        f"{project} is in use by {holder.describe()}; waited {wait:g} s and changed nothing "
        "(try again when it is done, or wait longer with --wait SECONDS)"
    )
