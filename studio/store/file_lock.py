"""Taking turns on a project file: one process writes at a time, the others wait and say for whom.

DuckDB lets one process at a time open a file for writing and refuses the others at once. The
studio puts its own advisory lock in front (`flock` on `<project>.lock`), which every studio
process takes before it opens the file and gives back as soon as it closes it, so a waiting
process is never refused by DuckDB. The holder writes who it is (pid, command line, since when)
into the lock file, for the waiting ones to tell their user. Within one process every Database
on the same file shares one lock: DuckDB shares the file between a process's connections.
A lock file that cannot be written is opened to read (enough for `flock`); in a folder where none
can be made (a read-only one, where the project is only read) the studio reads without one.
"""

from __future__ import annotations

import contextlib
import errno
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
CANNOT_WRITE = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT})
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


# A file's times come from the kernel's coarse clock (a tick: up to ~10 ms behind time.time()): an
# ask written just after `moment` can carry an earlier time, and was once missed that way.
COARSE_FILE_CLOCK_SECONDS = 0.02


def wanted_since(project: str, moment: float) -> bool:
    """Has a process asked for the file since `moment` (time.time())?"""
    try:
        return wanted_path(project).stat().st_mtime >= moment - COARSE_FILE_CLOCK_SECONDS
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
    """The process's hold on one project file: its open lock file and how many users share it."""

    def __init__(self, lock_file: _LockFile) -> None:
        self.lock_file = lock_file
        self.users = 0


class _LockFile:
    """The lock file as this process opened it (no descriptor: there is none and none could be made)."""

    def __init__(self, path: Path, descriptor: int | None, *, writable: bool = True, created: bool = False) -> None:
        self.path = path
        self.descriptor = descriptor
        self.writable = writable  # the holder's record can be written into it
        self.created = created  # this process made it

    @classmethod
    def open(cls, project: str) -> _LockFile:
        """Open (or make) the lock file. Where it cannot be written it is opened to read, which is all
        `flock` needs; where it cannot be made either (a read-only folder: the project file is read,
        never written, there), there is none."""
        path = lock_path(project)
        try:
            return cls(path, os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644), created=True)
        except FileExistsError:
            pass
        except OSError as error:
            if error.errno not in CANNOT_WRITE:
                raise
        try:
            return cls(path, os.open(path, os.O_RDWR))
        except OSError as error:
            if error.errno not in CANNOT_WRITE and error.errno != errno.ENOENT:
                raise
        try:
            return cls(path, os.open(path, os.O_RDONLY), writable=False)
        except FileNotFoundError:
            return cls(path, None, writable=False)

    def try_lock(self) -> bool:
        """Take the lock without waiting (False: another process holds it)."""
        if self.descriptor is None:
            return True
        try:
            fcntl.flock(self.descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self.descriptor)
            return False
        if self.writable:
            with contextlib.suppress(OSError):  # a disk without room: the record only informs
                _write_holder(self.descriptor)
        return True

    def close(self, *, discard: bool) -> None:
        """Let go. `discard`: remove the lock file too if this process made it (it was made for
        a file the studio then refused, which no studio process will ever take turns on)."""
        if self.descriptor is None:
            return
        if discard and self.created:
            self.path.unlink(missing_ok=True)
        elif self.writable:
            with contextlib.suppress(OSError):  # no stale record names a process that left
                os.ftruncate(self.descriptor, 0)
        fcntl.flock(self.descriptor, fcntl.LOCK_UN)
        os.close(self.descriptor)


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
            if wait > 0:  # a need, not a probe; said again each time, for a holder that took the file anew meanwhile
                announce_wait(self.project)
            if not told:
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
                lock_file = _LockFile.open(self.project)
                if not lock_file.try_lock():
                    return False
                held = _registry[self.key] = _Held(lock_file)
            held.users += 1
            self.held = True
            return True

    def release(self, *, discard: bool = False) -> None:
        """Give the turn back (`discard`: see `_LockFile.close`)."""
        if not self.held:
            return
        self.held = False
        with _registry_lock:
            held = _registry[self.key]
            held.users -= 1
            if held.users == 0:
                del _registry[self.key]
                held.lock_file.close(discard=discard)


def _write_holder(descriptor: int) -> None:
    record = {"pid": os.getpid(), "command": this_command(), "since": datetime.now(UTC).isoformat(timespec="seconds")}
    os.ftruncate(descriptor, 0)
    os.pwrite(descriptor, json.dumps(record).encode("utf-8"), 0)


def busy(project: str, holder: LockHolder, wait: float) -> ProjectBusy:
    return ProjectBusy(
        f"{project} is in use by {holder.describe()}; waited {wait:g} s and changed nothing "
        "(try again when it is done, or wait longer with --wait SECONDS)"
    )
