"""Which process owns a judge run, and whether that process still lives.

A process is named by its pid, its host and its start time (clock ticks after boot, field 22 of
/proc/PID/stat): once a process has ended, the system hands its pid to another one, and only the
start time tells the two apart.
"""

from __future__ import annotations

import os
import socket
from typing import NamedTuple

from studio.domain.choices import JudgeRunState


class ProcessIdentity(NamedTuple):
    pid: int
    host: str
    started: int | None  # None where the system has no /proc (the pid alone is then checked)


def process_start(pid: int) -> int | None:
    """The process's start time in clock ticks after boot, or None when it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as stat:
            fields = _fields_after_name(stat.read())
    except OSError:
        return None
    return int(fields[19]) if len(fields) > 19 and fields[19].isdigit() else None


def _fields_after_name(stat: str) -> list[str]:
    """The fields after the command name, which is in parentheses and may hold spaces or ')'."""
    return stat[stat.rfind(")") + 1 :].split()


def this_process() -> ProcessIdentity:
    pid = os.getpid()
    return ProcessIdentity(pid, socket.gethostname(), process_start(pid))


def is_alive(pid: int, started: int | None) -> bool:
    """Whether process `pid` of this host still runs and is the one that started at `started`."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as stat:
            fields = _fields_after_name(stat.read())
    except FileNotFoundError:
        return False
    except OSError:  # no /proc on this system: ask the kernel about the pid alone
        return _signal_reaches(pid)
    if not fields or fields[0] in ("Z", "X"):  # a killed process its parent has not reaped yet
        return False
    return started is None or (len(fields) > 19 and fields[19] == str(started))


def _signal_reaches(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    return True


def run_state(
    finished: bool, stopped: bool, pid: int | None, host: str | None, started: int | None, here: str | None = None
) -> JudgeRunState:
    """A judge run's state from what the project file holds about it and its process.

    A run written before the studio recorded owners (no pid) and never finished was interrupted:
    its process had closed the file before this one could open it.
    """
    if finished:
        return JudgeRunState.finished
    if stopped or pid is None:
        return JudgeRunState.interrupted
    if host != (here if here is not None else socket.gethostname()):
        return JudgeRunState.elsewhere
    return JudgeRunState.running if is_alive(pid, started) else JudgeRunState.interrupted
