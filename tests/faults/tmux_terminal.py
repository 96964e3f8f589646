"""A program in a real terminal (a detached tmux session on a private tmux server), to be killed.

The program is started with `exec`, so the pane's process is the program itself and SIGKILL
reaches it, not a shell in between.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import time
from collections.abc import Sequence
from pathlib import Path

from faults.faults_helpers import environment
from terminal_helpers import Terminal as BaseTerminal

_DECIDED = re.compile(r"(\d+) decided · ")


class Terminal(BaseTerminal):
    """A real terminal whose program runs with `exec`, for SIGKILL to reach it."""

    def __init__(self, name: str, home: Path, size: tuple[int, int] = (140, 40)) -> None:
        unset = {"TMUX", "COLUMNS", "LINES"}
        super().__init__(
            name, {k: v for k, v in environment(home).items() if k not in unset} | {"TERM": "xterm-256color"}
        )
        self.size = size

    def start(self, command: Sequence[str], size: tuple[int, int] | None = None) -> None:
        width, height = size or self.size
        self.tmux(
            "new-session", "-d", "-s", self.name, "-x", str(width), "-y", str(height), "exec " + shlex.join(command)
        )

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
        self.kill()
