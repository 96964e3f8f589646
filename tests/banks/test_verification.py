"""Grading verification: the answer each document gives to each item, beside its grade."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from studio import Project
from studio.cli.app import app
from studio.judges.backend import ChatResult
from studio.services.judging.config import JudgeConfig
from studio.services.judging.run import run_judge
from studio.services.rubric.verification import extract_answers, verification
from studio.services.sample_project import build_sample_project


class Examiner:
    """Rates by the passage number; answers extraction prompts with the item's first words."""

    name = "examiner"
    model = "examiner"

    def __init__(self) -> None:
        self.extractions = 0

    def params(self) -> dict[str, object]:
        return {}

    def complete(self, requests):  # type: ignore[no-untyped-def]
        for index, request in enumerate(requests):
            user = request.messages[-1][1]
            if user.startswith("provide a complete and concise answer"):
                self.extractions += 1
                question = user.split("Question: ")[1].split("\n")[0]
                yield index, ChatResult(f"answer to {question[:12]}")
            else:
                yield index, ChatResult(str(int(request.subject[1].rsplit("-", 1)[1]) % 6))

    def close(self) -> None:
        pass


def test_answers_are_extracted_once_and_listed_by_grade(tmp_path: Path) -> None:
    db = tmp_path / "p.duckdb"
    examiner = Examiner()
    with build_sample_project(db) as project:
        config = JudgeConfig(method="exam-question", backend="examiner", name="exam", bank="questions",
                             topics=["1009"], limit=4)
        for _ in run_judge(project.db, config, backend=examiner):
            pass
        *_, counts = extract_answers(project.db, "exam", backend=examiner)
        assert counts == {"judgments": 40, "calls": 40, "cache_hits": 0}
        *_, again = extract_answers(project.db, "exam", backend=examiner)
        assert again == {"judgments": 40, "calls": 0, "cache_hits": 40} and examiner.extractions == 40
        rows = verification(project.db, "exam")
        assert len(rows) == 40 and all(r["answer"] and r["answer"].startswith("answer to ") for r in rows)
        first_item = [r for r in rows if r["item_id"] == rows[0]["item_id"]]
        grades = [r["grade"] for r in first_item]
        assert grades == sorted(grades, reverse=True) and len(first_item) == 4

    result = CliRunner().invoke(app, ["--db", str(db), "judge", "--name", "exam", "--verify", "-f", "json"])
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)) == 40
    with Project.open(db) as project:
        assert project.label_sets()
