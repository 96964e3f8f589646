"""A program in a real terminal (a detached tmux session on a private tmux server), to be killed.

The program is started with `exec`, so the pane's process is the program itself and SIGKILL
reaches it, not a shell in between.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from faults.faults_helpers import environment

_DECIDED = re.compile(r"(\d+) decided · ")


class Terminal:
    def __init__(self, name: str, home: Path, size: tuple[int, int] = (140, 40)) -> None:
        self.name, self.size = name, size
        unset = {"TMUX", "COLUMNS", "LINES"}
        self.env = {k: v for k, v in environment(home).items() if k not in unset} | {"TERM": "xterm-256color"}

    def tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["tmux", "-L", self.name, *args], capture_output=True, text=True, check=check,
                              timeout=10, env=self.env)

    def start(self, command: Sequence[str]) -> None:
        self.tmux("new-session", "-d", "-s", self.name, "-x", str(self.size[0]), "-y", str(self.size[1]),
                  "exec " + shlex.join(command))

    def screen(self) -> str:
        done = self.tmux("capture-pane", "-p", "-t", self.name, check=False)
        return done.stdout if done.returncode == 0 else ""

    def press(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.name, *keys)

    def wait_for(self, found: Callable[[str], bool], seconds: float, what: str) -> str:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            text = self.screen()
            if found(text):
                return text
            time.sleep(0.1)
        raise AssertionError(f"{what} not seen within {seconds} s; the screen:\n{self.screen()}")

    @staticmethod
    def decided(screen: str) -> int:
        """The decisions the Review header shows as made."""
        found = _DECIDED.search(screen)
        assert found is not None, screen
        return int(found.group(1))

    def kill_program(self) -> None:
        """SIGKILL the program and wait until it is gone (its file lock with it)."""
        pid = int(self.tmux("list-panes", "-t", self.name, "-F", "#{pane_pid}").stdout.split()[0])
        os.kill(pid, signal.SIGKILL)
        self.tmux("kill-server", check=False)  # tmux reaps its pane's process
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.02)
        raise AssertionError(f"process {pid} outlived its SIGKILL")

    def close(self) -> None:
        self.tmux("kill-server", check=False)
