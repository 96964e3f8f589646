"""What the screens say and offer: current counts on the Overview after decisions, the past judge
runs, the studio's own commands in the palette and F1, the filter prompt's example, `b` without an
audit, the whole query in the Bank's topic selector, and Review on a derived label set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandList, CommandPalette
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Markdown, OptionList, Select, Static
from textual.widgets._select import SelectCurrent
from tui_helpers import Messages, drive, settle, text_of, until

from studio.domain.views import ReviewFilters
from studio.services.project import Project
from studio.tui.app import StudioApp
from studio.tui.commands import command_title
from studio.tui.screens.audit_picker import AuditPicker
from studio.tui.screens.bank import BankScreen
from studio.tui.screens.judges import JudgesScreen
from studio.tui.screens.overview import OverviewScreen
from studio.tui.screens.review import ReviewScreen
from studio.tui.widgets.help import HelpScreen
from studio.tui.widgets.text_prompt import TextPrompt

LLM = "umbrela-smol"


def on_review(app: StudioApp) -> bool:
    return isinstance(app.screen, ReviewScreen) and app.screen.loaded


def overview_shown(app: StudioApp) -> bool:
    return isinstance(app.screen, OverviewScreen) and app.screen.shown is not None


def events_shown(app: StudioApp, name: str) -> str:
    table = app.screen.query_one("#table-label_sets", DataTable)
    row = next(table.get_row_at(n) for n in range(table.row_count) if table.get_row_at(n)[0] == name)
    return str(row[5])  # the Events column


def test_the_overview_shows_current_counts_when_shown_again_after_decisions(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        before = events_shown(app, LLM)
        await pilot.press("f4")
        await settle(pilot, lambda: on_review(app))
        await pilot.press("3", "0")
        review = app.screen
        assert isinstance(review, ReviewScreen)
        await until(pilot, lambda: not review.pending)
        await pilot.press("f2")
        await settle(pilot, lambda: overview_shown(app) and events_shown(app, LLM) != before)
        with app.state.engine_lock:
            listed = next(row for row in app.state.project.label_sets() if row["name"] == LLM)
        assert events_shown(app, LLM) == f"{listed['events']:,}" == f"{int(before) + 2:,}"

    drive(sample, steps, ready=overview_shown)


def test_judges_lists_the_past_runs_and_one_fills_the_form(graded: Path) -> None:
    with Project.open(graded) as project:
        runs = project.judge_runs()
        config = project.judge_config("exam-sim")

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = app.screen
        assert isinstance(screen, JudgesScreen)
        table = screen.query_one("#runs", DataTable)
        assert [str(table.get_row_at(n)[0]) for n in range(table.row_count)] == [r["label_set"] for r in runs[::-1]]
        first = [str(cell) for cell in table.get_row_at(0)]
        newest = runs[-1]
        assert first[:3] == [newest["label_set"], newest["method"], newest["backend"]]
        assert first[4:8] == [f"{newest[key]:,}" for key in ("pairs", "calls", "cache_hits", "failures")]
        assert first[8] == newest["finished"]
        row = next(n for n in range(table.row_count) if table.get_row_at(n)[0] == "exam-sim")
        table.focus()
        table.move_cursor(row=row)
        await pilot.press("enter")
        await settle(pilot, lambda: screen.query_one("#name", Input).value == "exam-sim")
        assert screen.query_one("#method", Select).value == config.method == "exam-nugget"
        assert screen.query_one("#backend", Select).value == config.backend
        assert screen.query_one("#bank", Select).value == config.bank == "nuggets"
        assert screen.query_one("#pool", Input).value == config.pool
        assert "Failures of exam-sim's newest run" in text_of(app, "#failures-title")

    drive(graded, steps, screen="judges", ready=lambda app: app.screen.query_one("#runs", DataTable).row_count > 0)


async def palette_titles(app: StudioApp, pilot: Pilot[Any]) -> list[str]:
    await pilot.press("ctrl+p")
    await until(pilot, lambda: isinstance(app.screen, CommandPalette))
    found = app.screen.query_one(CommandList)
    await until(pilot, lambda: found.option_count > 0)
    await pilot.pause(0.3)  # every provider has answered
    return [str(found.get_option_at_index(n).prompt).split("\n")[0] for n in range(found.option_count)]


def test_the_palette_offers_the_screens_commands_first_and_no_generic_ones(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        titles = await palette_titles(app, pilot)
        own = [command_title(b) for b in ReviewScreen.BINDINGS if not isinstance(b, tuple) and b.description]
        assert titles[: len(own)] == own
        assert own[:4] == ["Grade 0", "Grade 1", "Grade 2", "Grade 3"]
        assert {"Help", "Quit", "Theme", "Overview", "Leaderboard"} <= set(titles[len(own) :])
        generic = {"Scroll Up", "Page Down", "Focus Next", "Copy selected text", "Screenshot", "Keys", "palette"}
        assert not generic & set(titles)

    drive(sample, steps, screen="review", ready=on_review)


def test_f1_lists_the_screens_own_keys_first(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        source = app.screen.query_one(Markdown).source
        rows = [line for line in source.splitlines() if line.startswith("| `")]
        assert rows[:5] == [
            "| `0` | Grade 0 |",
            "| `1` | Grade 1 |",
            "| `2` | Grade 2 |",
            "| `3` | Grade 3 |",
            "| `a` | Accept |",
        ]
        assert not [row for row in rows if "Scroll" in row or "Focus" in row or "Copy" in row]
        assert rows[-1] == "| `q` | Quit |"

    drive(sample, steps, screen="review", ready=on_review)


def test_the_filter_prompt_gives_an_example_that_works(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        await pilot.press("slash")
        await until(pilot, lambda: isinstance(app.screen, TextPrompt))
        hint = str(app.screen.query_one(Static).visual)
        assert "REF AUDITED" not in hint
        assert "topic 1003" in hint and "run lexical-bm25" in hint and "3 0 (the reference's grade" in hint
        await pilot.press(*"3 0", "enter")
        await settle(pilot, lambda: on_review(app))
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.session is not None
        assert screen.session.filters == ReviewFilters(ref_grade=3.0, grade=0.0)
        assert screen.session.queue and all(p["ref_grade"] == 3 and p["grade"] == 0 for p in screen.session.queue)

    drive(sample, steps, screen="review", ready=on_review)


def test_escape_on_the_filter_prompt_keeps_the_queue_where_it_was(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await pilot.press("s", "s")
        session, position = screen.session, 2
        assert session is not None and session.position == position
        await pilot.press("slash")
        await until(pilot, lambda: isinstance(app.screen, TextPrompt))
        await pilot.press("escape")
        await settle(pilot, lambda: on_review(app))
        assert screen.session is session and session.position == position  # not rebuilt from its start

    drive(sample, steps, screen="review", ready=on_review)


def test_b_without_an_audit_says_how_to_draw_one_and_asks_for_nothing(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, AuditPicker) and app.screen.audits is not None)
        picker = app.screen
        said = str(picker.query_one("#audit-title", Static).visual)
        assert said.startswith("The project has no audit yet")
        assert f"studio audit plan --qrels {LLM} --budget" in said
        assert not picker.query(Input) and not any(widget.display for widget in picker.query(OptionList))
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, ReviewScreen))

    drive(sample, steps, screen="review", ready=on_review)


@pytest.mark.parametrize("size", [(160, 48), (120, 40)])
def test_the_bank_topic_selector_shows_the_whole_query(sample: Path, size: tuple[int, int]) -> None:
    with Project.open(sample) as project:
        topics = [(row["qid"], row["text"] or "") for row in project.topics()]
    longest = max(topics, key=lambda topic: len(topic[1]))

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = app.screen
        assert isinstance(screen, BankScreen)
        select = screen.query_one("#topic", Select)
        select.value = longest[0]
        await settle(pilot)
        label = select.query_one(SelectCurrent).query_one("#label", Static)
        assert str(label.visual) == f"{longest[0]} {longest[1]}"
        assert label.content_region.width >= len(str(label.visual)), (label.content_region, str(label.visual))

    drive(sample, steps, screen="bank", size=size, ready=lambda app: getattr(app.screen, "view", None) is not None)


def test_review_on_a_derived_set_says_so_up_front_and_refuses_grades_at_once(sample: Path) -> None:
    with Project.open(sample) as project:
        project.ensemble(["human", LLM], "mean", "E")
        events = project.label_history("E", limit=1000)

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.session is not None
        status = text_of(app, "#status")
        assert "E is derived (ensemble: mean of human, umbrela-smol)" in status
        assert "only skip, flag and note apply" in status
        first = screen.session.current()
        await pilot.press("3")
        assert screen.session.current() == first and not screen.pending  # refused at once, nothing queued
        assert any("E is derived" in str(n.message) for n in app._notifications)
        await pilot.press("s")
        await until(pilot, lambda: not screen.pending)
        assert "pair 2 of" in text_of(app, "#status")

    drive(sample, steps, screen="review", ref="human", qrels="E", ready=on_review)
    with Project.open(sample) as project:
        assert project.label_history("E", limit=1000) == events
        logged = project.db.cursor().execute("SELECT action FROM review_decisions WHERE qrels = 'E'").fetchall()
        assert logged == [("skip",)]
