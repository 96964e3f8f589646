"""A real terminal for the studio: a detached tmux session on its own tmux server, read with
`capture-pane` and driven with `send-keys`; the session and its server are always killed."""

from __future__ import annotations

import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

STUDIO = Path(sys.executable).parent / "studio"
WIDTH, HEIGHT = 120, 36


class Terminal:
    """One tmux session, on a private server so the user's own tmux is never touched."""

    def __init__(self, name: str, env: dict[str, str]) -> None:
        self.name = name
        # Passed explicitly: in a pytest process GNU readline has put COLUMNS/LINES into the C
        # environment (not os.environ), and Textual would take them over the real pane size.
        self.env = env

    def tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-L", self.name, *args], capture_output=True, text=True, check=check, timeout=10, env=self.env
        )

    def start(self, command: list[str], size: tuple[int, int] = (WIDTH, HEIGHT)) -> None:
        # The fresh tmux server, and so the program, inherits self.env. remain-on-exit keeps the
        # pane after the program ends, so that its exit status can be read.
        self.tmux(
            "new-session",
            "-d",
            "-s",
            self.name,
            "-x",
            str(size[0]),
            "-y",
            str(size[1]),
            shlex.join(command),
            ";",
            "set-option",
            "-w",
            "-t",
            self.name,
            "remain-on-exit",
            "on",
        )

    def screen(self) -> str:
        done = self.tmux("capture-pane", "-p", "-t", self.name, check=False)
        return done.stdout if done.returncode == 0 else ""

    def press(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.name, *keys)

    def wait_for(self, found: Callable[[str], object], seconds: float, what: str, *, every: float = 0.2) -> str:
        """The first screen `found` holds for, looked at every `every` seconds; fails after `seconds`."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            text = self.screen()
            if found(text):
                return text
            time.sleep(every)
        pytest.fail(f"{what} not seen within {seconds} s; the screen:\n{self.screen()}")

    def exit_status(self) -> int | None:
        """The program's exit status once it has ended (0 when the session is already gone)."""
        done = self.tmux("list-panes", "-t", self.name, "-F", "#{pane_dead} #{pane_dead_status}", check=False)
        if done.returncode != 0:
            return 0
        dead, _, status = done.stdout.strip().partition(" ")
        return int(status or 0) if dead == "1" else None

    def kill(self) -> None:
        self.tmux("kill-server", check=False)
