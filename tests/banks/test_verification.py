"""Grading verification: the answer each document gives to each item, beside its grade."""

from __future__ import annotations

import json
from pathlib import Path

from fakes import ScriptedBackend, passage_number, prompt_of
from helpers import cli, judge_all

from studio import Project
from studio.domain.judging import JudgeConfig
from studio.judges.backend import ChatRequest
from studio.services.rubric.verification import extract_answers, verification

EXTRACTION = "provide a complete and concise answer"


def examine(request: ChatRequest) -> str:
    """Rates by the passage number; answers extraction prompts with the item's first words."""
    user = prompt_of(request)
    if user.startswith(EXTRACTION):
        question = user.split("Question: ")[1].split("\n")[0]
        return f"answer to {question[:12]}"
    return str(passage_number(request) % 6)


def extractions(backend: ScriptedBackend) -> int:
    return sum(prompt_of(r).startswith(EXTRACTION) for r in backend.requests)


def test_answers_are_extracted_once_and_listed_by_grade(sample: Path) -> None:
    db = sample  # a copy of the sample project, built once per test process
    examiner = ScriptedBackend(examine, name="examiner", model="examiner")
    with Project.sample(db) as project:
        config = JudgeConfig(
            method="exam-question", backend="examiner", name="exam", bank="questions", topics=["1009"], limit=4
        )
        judge_all(project.db, config, examiner)
        *_, counts = extract_answers(project.db, "exam", backend=examiner)
        assert counts == {"judgments": 40, "calls": 40, "cache_hits": 0}
        *_, again = extract_answers(project.db, "exam", backend=examiner)
        assert again == {"judgments": 40, "calls": 0, "cache_hits": 40} and extractions(examiner) == 40
        rows = verification(project.db, "exam")
        assert len(rows) == 40 and all(r["answer"] and r["answer"].startswith("answer to ") for r in rows)
        first_item = [r for r in rows if r["item_id"] == rows[0]["item_id"]]
        grades = [r["grade"] for r in first_item if r["grade"] is not None]
        assert grades == sorted(grades, reverse=True) and len(grades) == len(first_item) == 4

    result = cli(db, "judge", "--name", "exam", "--verify", "-f", "json")
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)) == 40
    with Project.open(db) as project:
        assert project.label_sets()
