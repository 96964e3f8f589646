"""Commands beside a member's open studio: with the TUI open on a team's copy and its background
sync running (another member grading and syncing all the while, so that it syncs again and
again), `studio list`, `label`, `export`, `team status` and `sync` on that same copy all succeed
with a short --wait: the studio holds the file only while it uses it (docs/team.md)."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from team.team_helpers import Team, grade_some, human_pairs
from terminal_helpers import STUDIO
from tui_helpers import SIZE, settle

from studio.services.project import Project
from studio.tui.app import StudioApp


async def studio(db: Path, *args: str) -> tuple[int, str, str]:
    """The `studio` program on `db`, waiting 5 s at most for the file (the default is 30), while the
    app runs on."""
    process = await asyncio.create_subprocess_exec(
        str(STUDIO),
        "--db",
        str(db),
        "--wait",
        "5",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(os.environ),
    )
    out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


def bob_grades_and_syncs(team: Team, stop: asyncio.Event) -> asyncio.Task[int]:
    """Bob grades one pair and syncs, again and again, until `stop`: alice's studio is told each
    time and syncs in the background."""

    def one(start: int) -> int:
        done = grade_some(team.path("bob"), 1, start=start)
        with Project.open(team.path("bob")) as bob:
            bob.sync()
        return done

    async def loop() -> int:
        rounds = 0
        while not stop.is_set() and await asyncio.to_thread(one, rounds) > 0:
            rounds += 1
        return rounds

    return asyncio.create_task(loop())


def test_commands_work_beside_an_open_team_studio(joined: Team) -> None:
    alice = joined.path("alice")
    (qid, docid), *_ = human_pairs(joined, 1)
    commands = [
        ("list", "qrels"),
        ("team", "status", "--format", "json"),
        ("label", "--qrels", "human", qid, docid, "3", "--person", "alice"),
        ("export", "qrels", "human", "--out", "-"),
        ("sync",),
    ]

    async def main() -> None:
        with Project.open(alice) as project:
            app = StudioApp(project)
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot, lambda: "synced" in str(app.sub_title))
                stop = asyncio.Event()
                grading = bob_grades_and_syncs(joined, stop)
                try:
                    for _ in range(3):
                        for args in commands:
                            code, out, err = await studio(alice, *args)
                            assert code == 0, (args, err)
                            if args[0] == "team":
                                assert json.loads(out)["member"] == "alice"
                            if args[0] == "export":
                                assert f"{qid} 0 {docid} 3" in out
                finally:
                    stop.set()
                    rounds = await grading
                assert rounds > 0  # the studio synced beside the commands
                await settle(pilot, lambda: "synced" in str(app.sub_title) and "0 waiting" in str(app.sub_title))

    asyncio.run(main())
    with Project.open(alice) as project:
        assert project.sync()["waiting"] == 0
