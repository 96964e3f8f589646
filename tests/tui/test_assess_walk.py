"""A campaign walked through Textual's Pilot: under manual and filtering the LLM's grade is on no
frame (nor `k`, the key that keeps it), before or after a grade; under post-editing each group is
announced from the highest grade and each pair shows the LLM's grade, which `k` keeps; grades are
audited edits with the condition and visibility; undo shows the pair again; a reopened campaign
resumes at the first pair not graded."""

from __future__ import annotations

import asyncio
import html
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from tui_helpers import Messages, drive, settle, text_of

from studio.services.project import Project
from studio.store import campaigns as campaign_store
from studio.tui.app import StudioApp
from studio.tui.screens.assess import AssessScreen

LLM = "umbrela-smol"
PARTS = ("status", "assess-group", "assess-head", "assess-passage", "assess-llm", "assess-saved")


def with_campaign(path: Path) -> dict[tuple[str, str], float]:
    """A campaign of one topic per condition; the LLM's grades."""
    with Project.open(path) as project:
        project.plan_campaign("walk", llm=LLM, pool="qrels:human", manual="1", filtering="1", post_editing="1", seed=3)
        return {
            (qid, docid): grade
            for qid, topic in project.engine.evaluator(LLM).labels.items()
            for docid, grade in topic.judged.items()
        }


def on_campaign(app: StudioApp) -> bool:
    return isinstance(app.screen, AssessScreen) and app.screen.session is not None


def frame(app: StudioApp, *, drawn: bool) -> str:
    """The screen's texts, and (`drawn`) every line of the screen as drawn, footer included."""
    picture = html.unescape(app.export_screenshot()).replace("\xa0", " ") if drawn else ""
    return "\n".join(text_of(app, f"#{name}") for name in PARTS) + "\n" + picture


def test_a_walk_shows_the_llm_grade_only_under_post_editing(sample: Path) -> None:
    llm = with_campaign(sample)

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = app.screen
        assert isinstance(screen, AssessScreen) and screen.session is not None
        session = screen.session
        seen_groups = []
        conditions: list[str] = []
        while (pair := session.current()) is not None:
            conditions.append(str(pair.condition))
            # The whole picture on each condition's first pairs (drawing it is slow), the texts on every one.
            drawn = conditions.count(conditions[-1]) <= 3
            shown = frame(app, drawn=drawn)
            if str(pair.condition) == "post-editing":
                assert "post-editing · pair" in text_of(app, "#status")
                grade = llm[(pair.qid, pair.docid)]
                assert f"LLM grade: {grade:g}" in text_of(app, "#assess-llm")
                assert f"({grade:g})" in text_of(app, "#assess-group") and ("Keep LLM grade" in shown or not drawn)
                seen_groups.append(grade)
                await pilot.press("k")
            else:  # blind: neither the LLM's grade nor the condition's name (which would tell it)
                assert not any(word in shown for word in ("LLM", "manual", "filtering", "post-editing")), shown
                await pilot.press("2")
            await pilot.pause()  # the next pair shows at once; its grade is saved behind it
            after = session.current()
            assert "LLM" not in frame(app, drawn=False) or after is None or after.condition.shows_llm
        await settle(pilot, lambda: not screen.pending)
        assert seen_groups == sorted(seen_groups, reverse=True) and len(set(seen_groups)) > 1
        assert "every pair graded" in text_of(app, "#status")
        rows = campaign_store.standing(app.state.project.db.cursor(), 1)
        assert len(rows) == len(session.pairs)
        for row in rows:
            visible = row["condition"] == "post-editing"
            assert row["llm_visible"] is visible and row["assessor"] == "tester"
            assert row["grade"] == (llm[(row["qid"], row["docid"])] if visible else 2.0)

    drive(sample, steps, ready=on_campaign, assess="walk")


def test_undo_shows_the_pair_again_and_a_reopened_campaign_resumes(sample: Path) -> None:
    with_campaign(sample)
    first: list[tuple[str, str]] = []

    async def grade_three_undo_one(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = app.screen
        assert isinstance(screen, AssessScreen) and screen.session is not None
        pairs = [(p.qid, p.docid) for p in screen.session.pairs]
        first.extend(pairs)
        for key in ("1", "0", "3"):
            await pilot.press(key)
            await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        current = screen.session.current()
        assert current is not None and (current.qid, current.docid) == pairs[2]
        assert "2/" in text_of(app, "#status")

    drive(sample, grade_three_undo_one, ready=on_campaign, assess="walk")

    async def reopened(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = app.screen
        assert isinstance(screen, AssessScreen) and screen.session is not None
        current = screen.session.current()
        assert current is not None and (current.qid, current.docid) == first[2]
        assert text_of(app, "#assess-head").startswith(current.qid)

    drive(sample, reopened, ready=on_campaign, assess="walk")
    with Project.open(sample) as project:
        assert project.campaign("walk")["judged"] == 2


def test_keys_pressed_while_the_campaign_opens_are_not_lost_in_silence(sample: Path) -> None:
    """Two assessors started at once: the one whose studio waited for the file pressed fifteen
    grade keys before the campaign had opened, and they left no event and no word. Here the open
    waits, deterministically, on the engine's lock held by the test: each key is answered with a
    notice, nothing is written, and the walk starts at its first pair once the campaign opens."""
    with_campaign(sample)
    messages = Messages()

    async def main() -> None:
        with Project.open(sample) as project:
            app = StudioApp(project, person="tester", assess="walk")
            app.state.engine_lock.acquire()  # the open's worker waits for it
            try:
                async with app.run_test(message_hook=messages.append) as pilot:
                    for _ in range(15):
                        await pilot.press("1")
                    await pilot.pause()
                    notices = [m for m in messages if type(m).__name__ == "Notify"]
                    assert len(notices) >= 1 and all("still opening" in str(m.notification.message) for m in notices)  # type: ignore[attr-defined]
                    app.state.engine_lock.release()
                    await settle(pilot, lambda: on_campaign(app))
                    screen = app.screen
                    assert isinstance(screen, AssessScreen) and screen.session is not None
                    assert screen.session.progress()[0] == 0 and not screen.pending
                    assert campaign_store.standing(project.db.cursor(), 1) == []
            finally:
                if app.state.engine_lock._is_owned():  # type: ignore[attr-defined]
                    app.state.engine_lock.release()

    asyncio.run(main())
