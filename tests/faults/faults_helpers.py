"""What the fault tests share: starting a studio process on a project file, killing it at a
moment drawn from a seeded generator, reading what it acknowledged, and the figures."""

from __future__ import annotations

import os
import pty
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).resolve().parent / "edit_driver.py"


def environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("STUDIO_DB", "STUDIO_PERSON", "FORCE_COLOR")}
    env.update(
        HOME=str(home),
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])),
        NO_COLOR="1",
        TERM="dumb",
    )
    return env


class Killable:
    """A process whose stdout lines are collected as they come (so a full pipe never stalls it).

    With `terminal_stderr`, its stderr is a pseudo-terminal, where the CLI draws its progress bar
    (`drawn()` is what it drew so far).
    """

    def __init__(self, command: Sequence[str], home: Path, *, terminal_stderr: bool = False) -> None:
        self._leader: int | None = None
        stderr: int = subprocess.PIPE
        env = environment(home)
        if terminal_stderr:
            self._leader, stderr = pty.openpty()
            env.update(TERM="xterm-256color", COLUMNS="160", LINES="40")
            env.pop("NO_COLOR", None)
        self.process = subprocess.Popen(
            list(command), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr, env=env, cwd=home, text=True
        )
        if terminal_stderr:
            os.close(stderr)
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self._drawn: list[str] = []
        self._readers = [threading.Thread(target=self._read, daemon=True)]
        if self._leader is not None:
            self._readers.append(threading.Thread(target=self._read_terminal, args=(self._leader,), daemon=True))
        for reader in self._readers:
            reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))

    def _read_terminal(self, leader: int) -> None:
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed with the process
                return
            if not chunk:
                return
            self._drawn.append(chunk.decode("utf-8", errors="replace"))

    def drawn(self) -> str:
        return "".join(self._drawn)

    def wait_drawn(self, pattern: re.Pattern[str], timeout: float = 60.0) -> None:
        """Until the terminal shows `pattern`, or the process ended."""
        deadline = time.monotonic() + timeout
        while not pattern.search(self.drawn()) and self.process.poll() is None:
            assert time.monotonic() < deadline, f"{pattern.pattern!r} not drawn within {timeout} s"
            time.sleep(0.01)

    def wait_for(self, text: str, timeout: float = 60.0) -> None:
        """Until a line equal to `text` came (it must, before `timeout` seconds)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {text!r} within {timeout} s: {self.stderr()}") from None
            self.seen.append(line)
            if line == text:
                return

    def kill(self) -> int:
        """SIGKILL now; the exit status (−9 when the signal ended it, 0 when it had ended already)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)
        for reader in self._readers:
            reader.join(timeout=30)
        while not self.lines.empty():
            self.seen.append(self.lines.get())
        return self.process.returncode

    def stderr(self) -> str:
        if self.process.poll() is None:
            return "(still running)"
        if self.process.stderr is None:
            return self.drawn()[-3000:]
        return self.process.stderr.read()[-3000:]

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
        if self._leader is not None:
            os.close(self._leader)
            self._leader = None


def studio_command(db: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "studio", "--db", str(db), *args]


def driver_command(mode: str, db: Path, seed: int) -> list[str]:
    return [sys.executable, str(DRIVER), mode, str(db), str(seed)]


@dataclass
class Figures:
    """What the fault tests did and found, per kind of process."""

    kills: dict[str, int] = field(default_factory=dict)
    acknowledged: dict[str, int] = field(default_factory=dict)  # acknowledged edits found kept
    judgments: int = 0  # judgments of stored calls found kept
    finished_before_kill: int = 0  # processes that ended before their kill came
    in_flight: int = 0  # edits committed but not yet acknowledged when the kill came
    losses: list[str] = field(default_factory=list)

    def count(self, kind: str, acknowledged: int = 0) -> None:
        self.kills[kind] = self.kills.get(kind, 0) + 1
        self.acknowledged[kind] = self.acknowledged.get(kind, 0) + acknowledged

    def summary(self) -> str:
        kinds = ", ".join(f"{kind} {n}" for kind, n in self.kills.items())
        acked = ", ".join(f"{kind} {n}" for kind, n in self.acknowledged.items() if n)
        return (
            f"fault injection: {sum(self.kills.values())} SIGKILLs ({kinds}); "
            f"{sum(self.acknowledged.values())} acknowledged edits checked ({acked}); "
            f"{self.judgments} judgments of stored calls checked; {self.in_flight} committed edits not yet "
            f"acknowledged at the kill; {self.finished_before_kill} processes done before their kill; "
            f"losses: {len(self.losses)}"
        )
