"""A campaign is a closed room (issue: `escape` once opened Review, which shows the LLM's and the
reference's grades for the campaign's own topics): no key leaves it but quitting, F2–F6 and the
palette are off, F1 tells the scale and nothing of the LLM on a blind pair, a notice of others'
writes names no label set. The footer is right from the first pair; after an undo the pair shows
the grade taken back; a grade another writer made meanwhile is read, and never written over."""

from __future__ import annotations

import asyncio
import html
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from terminal_helpers import STUDIO
from textual.pilot import Pilot
from textual.widgets import Markdown
from tui_helpers import Messages, drive, settle, text_of, until

from studio.domain.campaigns import GRADE_SCALE, PairRole
from studio.services.project import Project
from studio.store import campaigns as campaign_store
from studio.tui.app import CAMPAIGN_MODE, StudioApp
from studio.tui.messages import ChangesNoticed
from studio.tui.screens.assess import AssessScreen
from studio.tui.widgets.dialog import MessageDialog
from studio.tui.widgets.help import HelpScreen

LLM = "umbrela-smol"
BLIND_WORDS = ("LLM", LLM, "manual", "filtering", "post-editing", "walk-recall", "qrels:")


def plan(
    path: Path,
    *,
    manual: str | None = None,
    filtering: str | None = None,
    post_editing: str | None = None,
    recall: int = 0,
) -> None:
    with Project.open(path) as project:
        project.plan_campaign(
            "walk",
            llm=LLM,
            pool="qrels:human",
            manual=manual,
            filtering=filtering,
            post_editing=post_editing,
            seed=3,
            recall_sample=recall,
        )


def on_campaign(app: StudioApp) -> bool:
    return isinstance(app.screen, AssessScreen) and app.screen.session is not None


def campaign_screen(app: StudioApp) -> AssessScreen:
    screen = app.screen
    assert isinstance(screen, AssessScreen) and screen.session is not None
    return screen


def picture(app: StudioApp) -> str:
    """The screen's text as drawn, footer included (the SVG's styles and tags left out)."""
    svg = re.sub(r"<style>.*?</style>", "", app.export_screenshot(), flags=re.DOTALL)
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


def help_text(app: StudioApp) -> str:
    dialog = app.screen
    assert isinstance(dialog, HelpScreen)
    return dialog.query_one(Markdown).source


def test_no_key_leaves_a_blind_campaign_and_f1_tells_the_scale_only(sample: Path) -> None:
    plan(sample, manual="1", filtering="1", recall=3)

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = campaign_screen(app)
        assert app.current_mode == CAMPAIGN_MODE and len(app.screen_stack) == 1  # no Review beneath
        drawn = picture(app)
        assert "Back" not in drawn and "Screen" not in drawn and "f2" not in drawn  # the footer offers no way out
        assert not any(word in drawn for word in BLIND_WORDS), drawn
        scale = text_of(app, "#assess-scale")
        assert all(f"{s.grade} {s.name}" in scale for s in GRADE_SCALE)
        for key in ("escape", "f2", "f3", "f4", "f5", "f6", "ctrl+p", "b", "h", "a", "s", "k"):
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is screen and app.current_mode == CAMPAIGN_MODE, key
        assert screen.session is not None and screen.session.progress()[0] == 0  # none of them graded
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        told = help_text(app)
        assert all(s.meaning in told for s in GRADE_SCALE), told
        assert not any(word in told for word in BLIND_WORDS), told
        assert "Overview" not in told and "Review" not in told  # the screens' keys are off, so not listed
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)

    drive(sample, steps, ready=on_campaign, assess="walk")


def test_a_notice_of_others_writes_names_no_label_set_in_a_campaign(sample: Path) -> None:
    plan(sample, manual="1")

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        app.post_message(ChangesNoticed(f"1 new label in {LLM} from ana's edits"))
        await until(pilot, lambda: bool(app._notifications))
        said = " ".join(str(n.message) for n in app._notifications)
        assert "Grades written elsewhere" in said and LLM not in said and "ana" not in said

    drive(sample, steps, ready=on_campaign, assess="walk")


def test_the_footer_offers_k_on_the_first_pair_under_post_editing(sample: Path) -> None:
    """Opened on a post-editing pair, the footer once lacked `k` (which worked)."""
    plan(sample, post_editing="1")

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = campaign_screen(app)
        assert screen.session is not None and screen.session.position == 0
        await settle(pilot)
        assert "Keep LLM grade" in picture(app)
        assert "post-editing · pair 1 of" in text_of(app, "#status")

    drive(sample, steps, ready=on_campaign, assess="walk")


def test_an_undo_shows_the_grade_it_took_back(sample: Path) -> None:
    plan(sample, manual="1")

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = campaign_screen(app)
        assert screen.session is not None
        pairs = screen.session.pairs
        for key in ("1", "0", "3"):
            await pilot.press(key)
            await settle(pilot, lambda: not screen.pending)
        assert "You had graded" not in text_of(app, "#assess-saved")
        await pilot.press("u")
        await settle(pilot, lambda: not screen.pending)
        current = screen.session.current()
        assert current is not None and (current.qid, current.docid) == (pairs[2].qid, pairs[2].docid)
        assert "You had graded this pair 3 (perfectly relevant)" in text_of(app, "#assess-saved")
        await pilot.press("u")
        await settle(pilot, lambda: not screen.pending)
        assert "You had graded this pair 0 (irrelevant)" in text_of(app, "#assess-saved")
        await pilot.press("2")  # graded again: the walk is back at the third pair, still taken back
        await settle(pilot, lambda: not screen.pending)
        assert "You had graded this pair 3 (perfectly relevant)" in text_of(app, "#assess-saved")
        await pilot.press("1")  # graded again too: the fourth pair has nothing taken back
        await settle(pilot, lambda: not screen.pending)
        assert "You had graded" not in text_of(app, "#assess-saved")

    drive(sample, steps, ready=on_campaign, assess="walk")


def test_a_grade_written_elsewhere_is_never_written_over(sample: Path, tmp_path: Path) -> None:
    """An import of the assessor's grade of the pair on screen lands between the read and the key
    (deterministically: in the test, before the key, with the studio not told): the key's write is
    refused with the reason, the imported grade stands, and the walk moves past the pair."""
    plan(sample, manual="1")

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = campaign_screen(app)
        assert screen.session is not None
        first = screen.session.current()
        assert first is not None
        qrels = tmp_path / "tester.qrels"
        qrels.write_text(f"{first.qid} 0 {first.docid} 3\n")
        with app.state.engine_lock:
            app.state.project.import_campaign("walk", qrels, assessor="tester")
        await pilot.press("1")
        await until(pilot, lambda: isinstance(app.screen, MessageDialog))
        dialog = app.screen
        assert isinstance(dialog, MessageDialog) and dialog.title_text == "Not saved"
        assert f"{first.qid} {first.docid} was graded 3 by tester elsewhere" in dialog.text
        await pilot.press("escape")
        await settle(
            pilot, lambda: app.screen is screen and screen.session is not None and screen.session.position == 1
        )
        assert "1/" in text_of(app, "#status")
        with app.state.engine_lock:
            grades = app.state.project.campaign_pairs("walk", assessor=None, remaining=True)
        assert (first.qid, first.docid) not in {(p["qid"], p["docid"]) for p in grades}

    drive(sample, steps, ready=on_campaign, assess="walk")
    with Project.open(sample) as project:
        [row] = campaign_store.standing(project.db.cursor(), 1)
    assert (row["assessor"], row["grade"], row["seconds"]) == ("tester", 3.0, None)  # the import's, alone


@pytest.mark.process
def test_a_grade_another_process_imports_is_seen_before_the_next_key(sample: Path, tmp_path: Path) -> None:
    """`studio assess import` in another terminal while the campaign is open: the studio notices the
    write, reads the assessor's grades again and moves past the pair graded elsewhere, so the next
    key grades the next pair."""
    plan(sample, manual="1")

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = campaign_screen(app)
        assert screen.session is not None
        first, second = screen.session.pairs[:2]
        qrels = tmp_path / "tester.qrels"
        qrels.write_text(f"{first.qid} 0 {first.docid} 3\n")
        command = [str(STUDIO), "--db", str(sample), "--wait", "20", "assess", "import", "walk", str(qrels)]
        done = await asyncio.to_thread(
            subprocess.run, [*command, "--assessor", "tester"], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        await until(pilot, lambda: screen.session is not None and screen.session.position == 1)
        assert text_of(app, "#assess-head").startswith(second.qid) and "1/" in text_of(app, "#status")
        await pilot.press("2")
        await settle(pilot, lambda: not screen.pending)

    drive(sample, steps, ready=on_campaign, assess="walk")
    with Project.open(sample) as project:
        rows = campaign_store.standing(project.db.cursor(), 1)
    assert sorted((r["grade"], r["seconds"] is None) for r in rows) == [(2.0, False), (3.0, True)]


def test_the_recall_sample_walks_among_the_blind_pairs_in_the_seeds_order(sample: Path, tmp_path: Path) -> None:
    """The recall sample once came last, and the header switched to "manual" on it: its pairs now
    come among the blind ones, at places the seed draws (a copy planned alike walks alike), and
    the status line reads the same on them as on any blind pair."""
    twin = tmp_path / "twin.duckdb"
    shutil.copyfile(sample, twin)
    for path in (sample, twin):
        plan(path, manual="1", filtering="2", recall=4)
    with Project.open(twin) as project:
        twin_walk = [(p.qid, p.docid, p.role) for p in campaign_store.pairs(project.db.cursor(), 1)]

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = campaign_screen(app)
        assert screen.session is not None
        pairs = screen.session.pairs
        recall = [i for i, p in enumerate(pairs) if p.role is PairRole.recall]
        assert len(recall) == 4 and recall[-1] < len(pairs) - 1
        shapes = set()
        while screen.session.current() is not None:
            status = text_of(app, "#status")
            assert not any(word in status for word in BLIND_WORDS), status
            shapes.add(re.sub(r"\d+", "N", re.sub(r", \d+ saving…", "", status)))
            await pilot.press("1")
            await pilot.pause()
        assert len(shapes) == 1, shapes  # recall pairs or not, one status line
        await settle(pilot, lambda: not screen.pending)

    drive(sample, steps, ready=on_campaign, assess="walk")
    with Project.open(sample) as project:
        walk = [(p.qid, p.docid, p.role) for p in campaign_store.pairs(project.db.cursor(), 1)]
    assert walk == twin_walk
