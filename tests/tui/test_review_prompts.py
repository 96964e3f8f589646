"""Review shows a pair's grade under every prompt a study linked label sets to, with how far the
prompts spread on it: their disagreement is a reason to look at the pair."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from meta.test_prompt_study import HUMAN, LLM_LABELS, PROMPT_OF, build_project
from textual.pilot import Pilot
from textual.widgets import DataTable
from tui_helpers import Messages, drive, settle, text_of

from studio import Project
from studio.store.prompt_collections import prompt_grades
from studio.tui.app import StudioApp
from studio.tui.screens.review import ReviewScreen
from studio.tui.widgets.pair_panel import prompt_spread

PAIRS = list(HUMAN)


def expected_grades(pair: tuple[str, str]) -> dict[str, float]:
    """Each linked pointwise prompt's grade of `pair`, as the test's files give it."""
    return {PROMPT_OF[name]: float(labels[PAIRS.index(pair)]) for name, labels in LLM_LABELS.items()}


def test_the_store_gives_each_pointwise_prompts_grade_of_a_pair(tmp_path: Path) -> None:
    with Project.open(build_project(tmp_path)) as project:
        for pair in (("q1", "d0"), ("q2", "e7")):
            rows = prompt_grades(project.db.cursor(), *pair)
            assert {row["prompt_id"]: row["grade"] for row in rows} == expected_grades(pair)
            assert {row["method"] for row in rows} == {"binary"}  # the pairwise verdicts have no grade
            assert {row["author_group"] for row in rows} == {"people", "llm"}
        assert prompt_grades(project.db.cursor(), "q1", "unknown") != []  # every prompt, none grading it
        assert all(row["grade"] is None for row in prompt_grades(project.db.cursor(), "q1", "unknown"))


def test_review_shows_the_pairs_grade_under_each_prompt(tmp_path: Path) -> None:
    db = build_project(tmp_path)

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = app.screen
        await settle(pilot, lambda: isinstance(screen, ReviewScreen) and screen.loaded)
        assert isinstance(screen, ReviewScreen) and screen.session is not None
        current = screen.session.current()
        assert current is not None
        pair = (current["qid"], current["docid"])
        await settle(pilot, lambda: screen.query_one("#prompts", DataTable).row_count > 0)
        table = screen.query_one("#prompts", DataTable)
        shown = {str(table.get_row_at(i)[0]).split("/")[1]: table.get_row_at(i)[4] for i in range(table.row_count)}
        assert shown == {prompt: f"{grade:g}" for prompt, grade in expected_grades(pair).items()}
        grades = sorted(set(expected_grades(pair).values()))
        assert ("all" if len(grades) == 1 else "grades") in text_of(app, "#prompts-head")

    drive(db, steps, screen="review", ref="human", qrels="p-h1")


def test_without_a_study_review_shows_no_prompt_table(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = app.screen
        await settle(pilot, lambda: isinstance(screen, ReviewScreen) and screen.loaded)
        assert not screen.query_one("#prompts", DataTable).display
        assert not screen.query_one("#prompts-head").display

    drive(sample, steps, screen="review")


def test_the_spread_line() -> None:
    def row(grade: float | None) -> Any:
        return {"grade": grade}

    assert prompt_spread([row(1.0), row(1.0)]) == "all 1 from 2 prompts"
    assert prompt_spread([row(0.0), row(3.0), row(None)]) == "grades 0–3 from 2 prompts"
    assert prompt_spread([row(None)]) == "no grade from 1 prompt"
