"""Review driven through Textual's Pilot: keys decide, the project file records each decision,
τ and κ shown are the Project API's, undo reverts, a reopened review resumes."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
from helpers import known
from judge_helpers import run_files
from textual.pilot import Pilot
from textual.widgets import Static
from tui_helpers import Messages, drive, settle, text_of

from studio.services.meta.review_queue import disagreements
from studio.services.project import Project
from studio.tui.app import StudioApp
from studio.tui.messages import ReviewDecided
from studio.tui.screens.review import ReviewScreen
from studio.tui.widgets.pair_panel import columns
from studio.tui.widgets.review_history import HistoryList

LLM = "umbrela-smol"


def queue_loaded(app: StudioApp) -> bool:
    return isinstance(app.screen, ReviewScreen) and app.screen.loaded


def person_events(project: Project) -> list[tuple[Any, ...]]:
    return (
        project.db.cursor()
        .execute(
            "SELECT e.qid, e.docid, e.grade, e.origin, e.source FROM label_events e JOIN label_sets s"
            " USING (label_set_id) WHERE s.name = ? AND e.origin IN ('person', 'undo') ORDER BY e.event_id",
            [LLM],
        )
        .fetchall()
    )


def shown_tau(app: StudioApp) -> str:
    return text_of(app, "#status").split("τ ")[1].split(" ")[0]


def test_three_sets_the_grade_saves_it_and_moves_tau(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        await settle(pilot, lambda: queue_loaded(app))
        project = app.state.project
        first = disagreements(project.engine, "human", LLM)[0]
        assert f"{first['qid']}" in text_of(app, "#pair-head") and first["docid"] in text_of(app, "#pair-head")
        before = known(project.correlation("human", LLM)["kendall_tau"])
        assert shown_tau(app) == f"{before:.3f}"
        assert "pair 1 of" in text_of(app, "#status")

        await pilot.press("3")
        await settle(pilot)
        assert person_events(project) == [(first["qid"], first["docid"], 3.0, "person", "tester")]
        after = known(project.correlation("human", LLM)["kendall_tau"])
        [decided] = messages.of(ReviewDecided)
        assert decided.action == "grade" and decided.stats.tau == after and decided.stats.tau_change == after - before
        assert shown_tau(app) == f"{after:.3f}"
        assert f"({after - before:+.3f})" in text_of(app, "#status")
        assert "pair 2 of" in text_of(app, "#status") and "1 decided" in text_of(app, "#status")
        history = app.screen.query_one(HistoryList)
        assert [line.split()[2:] for line in history.row_texts()] == [["grade", "3"]]
        assert history.row_texts()[0].split()[:2] == [first["qid"], first["docid"]]

        await pilot.press("u")
        await settle(pilot)
        assert [e[3] for e in person_events(project)] == ["person", "undo"]
        assert [m.action for m in messages.of(ReviewDecided)] == ["grade", "undo"]
        assert messages.of(ReviewDecided)[-1].stats.tau == before
        assert project.engine.evaluator(LLM).labels[first["qid"]].judged[first["docid"]] == first["grade"]
        assert shown_tau(app) == f"{before:.3f}" and "pair 1 of" in text_of(app, "#status")

    drive(sample, steps, screen="review")


def test_accept_keep_skip_flag_and_note(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        await settle(pilot, lambda: queue_loaded(app))
        project = app.state.project
        queue = disagreements(project.engine, "human", LLM)[:3]
        await pilot.press("a")  # keep the LLM's grade: a confirming event with the same grade
        await pilot.press("h")  # give the LLM set the human grade
        await pilot.press("s")
        await settle(pilot)
        grades = project.engine.evaluator(LLM).labels
        assert grades[queue[0]["qid"]].judged[queue[0]["docid"]] == queue[0]["grade"]
        assert grades[queue[1]["qid"]].judged[queue[1]["docid"]] == queue[1]["ref_grade"]
        assert [e[:3] for e in person_events(project)] == [
            (queue[0]["qid"], queue[0]["docid"], queue[0]["grade"]),
            (queue[1]["qid"], queue[1]["docid"], queue[1]["ref_grade"]),
        ]
        await pilot.press("f")
        await pilot.press("n")
        await pilot.pause()
        await pilot.press(*"stuffed", "enter")
        await settle(pilot)
        assert "flagged" in text_of(app, "#pair-head") and "stuffed" in text_of(app, "#pair-head")
        logged = (
            project.db.cursor().execute("SELECT action, note FROM review_decisions ORDER BY decision_id").fetchall()
        )
        assert logged == [("accept", None), ("reference", None), ("skip", None), ("flag", None), ("note", "stuffed")]

    drive(sample, steps, screen="review")


def test_a_reopened_review_resumes_and_the_history_can_be_decided_again(sample: Path) -> None:
    decided: list[tuple[str, str]] = []

    async def first_sitting(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        await settle(pilot, lambda: queue_loaded(app))
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.session is not None
        for key in "21":
            pair = screen.session.current()
            assert pair is not None
            decided.append((pair["qid"], pair["docid"]))
            await pilot.press(key)
        await settle(pilot)

    drive(sample, first_sitting, screen="review")

    async def second_sitting(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        await settle(pilot, lambda: queue_loaded(app))
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.session is not None
        queue = [(p["qid"], p["docid"]) for p in screen.session.queue]
        assert not set(decided) & set(queue)
        history = screen.query_one(HistoryList)
        assert len(history.row_texts()) == 2  # the last decisions, newest first
        history.focus()
        await pilot.press("down", "enter")  # the older decision: shown again
        await settle(pilot)
        assert decided[0][1] in text_of(app, "#pair-head") and "decided: grade" in text_of(app, "#pair-head")
        await pilot.press("0")
        await settle(pilot)
        assert app.state.project.engine.evaluator(LLM).labels[decided[0][0]].judged[decided[0][1]] == 0.0

    drive(sample, second_sitting, screen="review")


def test_the_filter_narrows_the_queue_to_a_topic(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        await settle(pilot, lambda: queue_loaded(app))
        await pilot.press("slash")
        await pilot.pause()
        await pilot.press(*"topic 1003", "enter")
        await settle(pilot, lambda: queue_loaded(app))
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.session is not None
        assert screen.session.queue and {p["qid"] for p in screen.session.queue} == {"1003"}
        assert "topic 1003" in text_of(app, "#status")

    drive(sample, steps, screen="review")


def trec_rank(rows: list[tuple[str, str, float]], qid: str, docid: str) -> int | None:
    """The 1-based rank of `docid` in a run's ranking of `qid` as trec_eval orders it (score as a
    C float descending, ties by docid in descending byte order); None when not retrieved."""
    ranked = sorted(
        ((d, float(np.float32(s))) for q, d, s in rows if q == qid), key=lambda e: e[0].encode(), reverse=True
    )
    ranked.sort(key=lambda e: e[1], reverse=True)
    order = [d for d, _ in ranked]
    return order.index(docid) + 1 if docid in order else None


def places(board: dict[str, float]) -> dict[str, int]:
    return {run: n for n, run in enumerate(sorted(board, key=lambda r: (-board[r], r)), start=1)}


def test_the_lower_half_shows_who_retrieved_the_pair_and_which_runs_it_moves(sample: Path, tmp_path: Path) -> None:
    shown: dict[str, Any] = {}

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.session is not None
        pair = screen.session.current()
        assert pair is not None
        shown["pair"] = pair
        for name in ("retrieved", "moves"):
            widget = screen.query_one(f"#{name}", Static)
            title, _headers, *rows = str(widget.content).splitlines()
            shown[name] = [[cell.strip() for cell in row.split("  ") if cell.strip()] for row in rows]
            shown[f"{name}-title"] = title
            shown[f"{name}-region"] = widget.region
        shown["height"] = app.size.height

    drive(sample, steps, screen="review", ready=queue_loaded, size=(160, 48))
    pair = shown["pair"]
    qid, docid = pair["qid"], pair["docid"]

    expected = sorted(
        ((run, rank) for run, rows in run_files().items() if (rank := trec_rank(rows, qid, docid)) is not None),
        key=lambda e: (e[1], e[0]),
    )
    assert expected and shown["retrieved"] == [[run, str(rank)] for run, rank in expected]
    assert shown["retrieved-title"] == f"Retrieved by {len(expected)} runs"

    # What taking the reference grade would do, applied for real to a copy of the project.
    copy = tmp_path / "what-if.duckdb"
    shutil.copyfile(sample, copy)
    with Project.open(copy) as project:
        before = project.leaderboard(LLM)
        project.set_label(LLM, qid, docid, pair["ref_grade"])
        after = project.leaderboard(LLM)
    now, then = places(before), places(after)
    moved = {run for run in now if now[run] != then[run]}
    assert moved, "the first pair of the queue changes the leaderboard most: some run must move"
    runs = [row[0] for row in shown["moves"]]
    assert set(runs) == moved and len(runs) == len(moved)
    assert [row[1] for row in shown["moves"]] == [f"{now[run]} → {then[run]}" for run in runs]
    assert shown["moves-title"].endswith(f"{len(moved)} run{'' if len(moved) == 1 else 's'} move")
    # Both lists are on the screen and reach into its lower half, which was empty before.
    regions = [shown["retrieved-region"], shown["moves-region"]]
    assert all(region.height > len(expected) // 2 for region in regions[:1]) and regions[1].height > 0
    assert max(region.bottom for region in regions) > shown["height"] // 2


def test_a_why_list_shows_ten_rows_and_counts_the_rest() -> None:
    rows = [(f"run-{n:03d}", str(n)) for n in range(1, 64)]  # e.g. 63 official runs retrieved it
    lines = str(columns("Retrieved by 63 runs", ("Run", "Rank"), rows)).splitlines()
    assert lines[0] == "Retrieved by 63 runs" and lines[1].split() == ["Run", "Rank"]
    assert [line.split() for line in lines[2:12]] == [[run, rank] for run, rank in rows[:10]]
    assert lines[12:] == ["… and 53 more"]
    short = str(columns("Retrieved by 2 runs", ("Run", "Rank"), rows[:2])).splitlines()
    assert len(short) == 4 and not any("more" in line for line in short)
