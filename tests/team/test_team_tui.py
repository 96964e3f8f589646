"""The TUI's background sync, through Textual's Pilot: another member's grades arrive in the open
studio within a sync or two, the header says when it last synced and what waits, and says offline
when the server is gone (the grades made meanwhile wait, then go up)."""

from __future__ import annotations

import asyncio

from team.team_helpers import AUDIT, Team, grade_some, identities
from tui_helpers import SIZE, settle

from studio.services.project import Project
from studio.tui.app import StudioApp


def test_the_studio_syncs_in_the_background_and_says_how_it_stands(joined: Team) -> None:
    grade_some(joined.path("bob"), 3)
    with Project.open(joined.path("bob")) as project:
        assert project.sync()["pushed"] == 3

    async def main() -> None:
        with Project.open(joined.path("alice")) as project:
            app = StudioApp(project)
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot, lambda: "synced" in str(app.sub_title))
                assert "team alice: synced" in str(app.sub_title) and "0 waiting" in str(app.sub_title)
                with project.lock:
                    assert project.audit_agreement(AUDIT)["assessors"]
                joined.cluster.stop()
                try:
                    with project.lock:
                        session = project.blind_audit(AUDIT)
                        session.load()
                        session.grade(2)
                        session.grade(1)
                    await settle(pilot, lambda: "offline" in str(app.sub_title), seconds=40)
                    assert "2 waiting" in str(app.sub_title) and "last sync" in str(app.sub_title)
                finally:
                    joined.cluster.start()
                await settle(
                    pilot, lambda: "synced" in str(app.sub_title) and "0 waiting" in str(app.sub_title), seconds=40
                )

    asyncio.run(main())
    assert [i for i in identities(joined.path("alice")) if i[0] == "bob"] == [("bob", 1), ("bob", 2), ("bob", 3)]
    assert [i for i in identities(joined.path("alice")) if i[0] == "alice"] == [("alice", 1), ("alice", 2)]
