"""Several assessors on one audit, through Textual's Pilot: the blind audit as alice walks alice's
pairs only (in the audit's order); a pair alice and bob grade differently opens in Review's
conflicts filter, showing both grades, and a grade key adjudicates it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from tui_helpers import SIZE, settle, text_of

from studio.domain.specs import AuditDrawSpec
from studio.services.audit.samples import audit_pairs
from studio.services.project import Project
from studio.tui.app import StudioApp
from studio.tui.screens.audit import AuditScreen
from studio.tui.screens.review import ReviewScreen

LLM = "umbrela-smol"
AUDIT = "shared"


def run_as(path: Path, person: str, steps: Callable[[StudioApp, Pilot[Any]], Awaitable[None]], **options: Any) -> None:
    async def main() -> None:
        with Project.open(path) as project:
            app = StudioApp(project, person=person, **options)
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot)
                await steps(app, pilot)

    asyncio.run(main())


def split_audit(path: Path) -> tuple[list[tuple[str, str]], dict[str, list[tuple[str, str]]]]:
    """An audit of 10 pairs split between alice and bob, half of them given to both."""
    with Project.open(path) as project:
        project.plan_audit(AuditDrawSpec(LLM, name=AUDIT, budget=10, design="pairs", seed=5))
        project.assign_audit(AUDIT, ["alice", "bob"], overlap=0.5, seed=1)
        order = [(q, d) for q, d, _ in audit_pairs(project.db.cursor(), AUDIT)]
        given = {
            name: [(r["qid"], r["docid"]) for r in project.audit_pairs(AUDIT, assessor=name)]
            for name in ("alice", "bob")
        }
    return order, given


def shown_pair(app: StudioApp) -> tuple[str, str]:
    head = text_of(app, "#audit-head").split("\n")
    return head[0].split(" ")[0], head[1].split(" ")[0]


def test_alice_walks_her_pairs_and_adjudicates_a_conflict_in_review(sample: Path) -> None:
    order, given = split_audit(sample)
    alice = given["alice"]
    assert set(alice) != set(order) and set(alice) & set(given["bob"])
    assert alice == [p for p in order if p in set(alice)]  # her pairs in the audit's order

    async def grade_as_alice(app: StudioApp, pilot: Pilot[Any]) -> None:
        await settle(pilot, lambda: isinstance(app.screen, AuditScreen) and app.screen.session is not None)
        shown = []
        for count in range(len(alice)):
            assert f"{count}/{len(alice)} graded" in text_of(app, "#status")
            shown.append(shown_pair(app))
            await pilot.press("2")
            await settle(pilot)
        assert shown == alice

    run_as(sample, "alice", grade_as_alice, audit=AUDIT)
    with Project.open(sample) as project:
        bob = project.blind_audit(AUDIT, person="bob")
        bob.load()
        while not bob.finished:
            bob.grade(0)
        conflicts = project.audit_conflicts(AUDIT)
        seconds = project.db.cursor().execute("SELECT assessor, seconds FROM audit_assessments").fetchall()
    shared = [p for p in order if p in set(alice) & set(given["bob"])]
    assert [(c["qid"], c["docid"]) for c in conflicts] == shared
    assert all(c["grades"] == {"alice": 2.0, "bob": 0.0} for c in conflicts)
    assert sorted(name for name, s in seconds if s is not None and s >= 0) == sorted(
        ["alice"] * len(alice) + ["bob"] * len(given["bob"])
    )  # every grade timed, per assessor
    first = shared[0]

    async def adjudicate(app: StudioApp, pilot: Pilot[Any]) -> None:
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await settle(pilot, lambda: screen.loaded)
        await pilot.press("slash")
        await pilot.pause()
        await pilot.press(*f"conflicts {AUDIT}", "enter")
        await settle(
            pilot, lambda: screen.loaded and screen.session is not None and screen.session.filters.conflicts == AUDIT
        )
        assert screen.session is not None
        assert [(p["qid"], p["docid"]) for p in screen.session.queue] == shared
        await settle(pilot, lambda: "alice 2" in text_of(app, "#pair-head"))
        head = text_of(app, "#pair-head")
        assert first[1] in head and "alice 2 · bob 0" in head
        await pilot.press("3")
        await settle(pilot)

    run_as(sample, "dana", adjudicate, screen="review")
    with Project.open(sample) as project:
        assert project.engine.evaluator(AUDIT).labels[first[0]].judged[first[1]] == 3.0
        assert [(c["qid"], c["docid"]) for c in project.audit_conflicts(AUDIT)] == shared[1:]
        other = shared[1]
        assert project.engine.evaluator(AUDIT).labels[other[0]].judged[other[1]] == 1.0  # the mean until adjudicated
        notes = [
            n
            for (n,) in project.db.cursor()
            .execute(
                "SELECT note FROM label_events e JOIN label_sets s USING (label_set_id)"
                " WHERE s.name = ? AND qid = ? AND docid = ? ORDER BY event_id",
                [AUDIT, *first],
            )
            .fetchall()
        ]
    assert notes == [
        f"audit {AUDIT}: alice graded 2",
        f"audit {AUDIT}: bob graded 0",
        f"audit {AUDIT}: dana adjudicated",
    ]
