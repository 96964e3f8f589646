"""One member grading in a process of its own: their audit pairs in random order, a grade taken
back now and then, a sync at random moments, a last sync at the end; or a sync that dies.

    python team_worker.py PROJECT SEED          grade and sync
    python team_worker.py PROJECT die-after-server-commit|die-before-server-commit
"""

from __future__ import annotations

import os
import random
import signal
import sys
from pathlib import Path
from typing import Any

from studio import Project
from studio.store.team import local, server_events


def die(*_: Any, **__: Any) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def grade_and_sync(path: Path, seed: int) -> None:
    chance = random.Random(seed)
    with Project.open(path) as project:
        session = project.blind_audit("gold")
        session.load()
        while session.current() is not None:
            session.grade(chance.randrange(4))
            if chance.random() < 0.1:
                session.undo()  # takes the member's own newest grade back; the pair comes up again
            if chance.random() < 0.25:
                project.sync()
        project.sync()


def main() -> None:
    path, how = Path(sys.argv[1]), sys.argv[2]
    if how == "die-after-server-commit":  # the server has the events, the project file never hears of it
        local.mark_pushed = die
    elif how == "die-before-server-commit":  # the events are sent, the transaction never commits
        sent = server_events.push

        def push_then_die(*args: Any, **kwargs: Any) -> server_events.Pushed:
            sent(*args, **kwargs)
            die()
            return server_events.Pushed(0, [])

        server_events.push = push_then_die
    if how.startswith("die"):
        with Project.open(path) as project:
            project.sync()
        return
    grade_and_sync(path, int(how))


if __name__ == "__main__":
    main()
