"""Review shows a pair's grade under every prompt a study linked label sets to, with how far the
prompts spread on it: their disagreement is a reason to look at the pair. One line per prompt,
model and test collection, the collection named; the collections that do not hold the pair left
out; binary 0/1 and graded 0–3 grades in lists of their own; prompts in natural order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from meta.test_prompt_study import HUMAN, LLM_LABELS, PROMPT_OF, build_project
from textual.pilot import Pilot
from tui_helpers import Messages, drive, settle, text_of

from studio import Project
from studio.domain.prompt_grades import by_method, shown_prompt_grades
from studio.domain.rows import PromptGrade
from studio.store import Connection
from studio.store.prompt_collections import pairs_prompt_grades
from studio.tui.app import StudioApp
from studio.tui.screens.review import ReviewScreen
from studio.tui.widgets.pair_panel import prompt_spread, prompts_text

PAIRS = list(HUMAN)


def expected_grades(pair: tuple[str, str]) -> dict[str, float]:
    """Each linked pointwise prompt's grade of `pair`, as the test's files give it."""
    return {PROMPT_OF[name]: float(labels[PAIRS.index(pair)]) for name, labels in LLM_LABELS.items()}


def prompt_grades(con: Connection, qid: str, docid: str) -> list[PromptGrade]:
    return pairs_prompt_grades(con, [(qid, docid)])[(qid, docid)]


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
        await settle(pilot, lambda: bool(screen.query_one("#prompts").display))
        lines = text_of(app, "#prompts").splitlines()
        assert lines[0].startswith("Under each binary prompt (0/1) · ")
        assert lines[1].split() == ["Prompt", "Group", "Model", "Collection", "Grade"]
        shown = {line.split()[0]: (line.split()[3], line.split()[4]) for line in lines[2:]}
        assert shown == {prompt: ("dl-toy", f"{grade:g}") for prompt, grade in expected_grades(pair).items()}
        grades = sorted(set(expected_grades(pair).values()))
        assert ("all" if len(grades) == 1 else "grades") in lines[0]

    drive(db, steps, screen="review", ref="human", qrels="p-h1")


def test_without_a_study_review_shows_no_prompt_table(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = app.screen
        await settle(pilot, lambda: isinstance(screen, ReviewScreen) and screen.loaded)
        assert not screen.query_one("#prompts").display

    drive(sample, steps, screen="review")


def test_the_spread_line() -> None:
    def row(grade: float | None) -> Any:
        return {"grade": grade}

    assert prompt_spread([row(1.0), row(1.0)]) == "all 1 from 2 prompts"
    assert prompt_spread([row(0.0), row(3.0), row(None)]) == "grades 0–3 from 2 prompts"
    assert prompt_spread([row(None)]) == "no grade from 1 prompt"


def grade_row(prompt: str, method: str, collection: str, grade: float | None) -> PromptGrade:
    return PromptGrade(
        label_set=f"{method}-{prompt}-{collection}",
        collection="ps",
        prompt_id=prompt,
        author_group="people",
        method=method,
        model="m",
        grade=grade,
        test_collection=collection,
    )


def test_one_line_per_prompt_and_collection_scales_apart_in_natural_order() -> None:
    """The study's two collections: a DL20 pair has no grade under the DL21 label sets, which are
    left out; binary and graded grades go in lists of their own; prompt 10 comes after 2."""
    rows = [
        grade_row(prompt, method, collection, None if collection == "dl21" else grade)
        for prompt in ("10", "2", "1")
        for method, grade in (("graded", 3.0), ("binary", 1.0))
        for collection in ("dl21", "dl20")
    ]
    shown = shown_prompt_grades(rows)
    assert {r["test_collection"] for r in shown} == {"dl20"}
    methods = by_method(shown)
    assert [m for m, _ in methods] == ["binary", "graded"]
    for method, group in methods:
        assert [r["prompt_id"] for r in group] == ["1", "2", "10"]
        assert {r["method"] for r in group} == {method}
    text = prompts_text(shown).plain
    binary, graded = text.split("\n\n")
    assert binary.startswith("Under each binary prompt (0/1) · all 1 from 3 prompts")
    assert graded.startswith("Under each graded prompt (0–3) · all 3 from 3 prompts")
    assert all(line.split()[3] == "dl20" for line in binary.splitlines()[2:])


def test_a_pair_no_collection_grades_keeps_every_line() -> None:
    rows = [grade_row("1", "binary", c, None) for c in ("dl21", "dl20")]
    assert [r["test_collection"] for r in shown_prompt_grades(rows)] == ["dl20", "dl21"]
