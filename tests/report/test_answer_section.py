"""The report's section on generated answers: one bar chart per answers label set (the Gen-IR
comparison's figures), the systems in one order in every chart, each score with its interval; none
when no label set judges answers."""

from __future__ import annotations

import io
from pathlib import Path

from answers.genir_project import build
from matplotlib import image

from studio import Project
from studio.domain.report import Interval, Section
from studio.services.report.build import build_report


def answers(sections: list[Section]) -> list[Section]:
    return [s for s in sections if s.key == "answers"]


def test_one_chart_per_method_systems_in_one_order(tmp_path: Path) -> None:
    db = build(tmp_path / "genir.duckdb")
    with Project.open(db, read_only=True) as project:
        [section] = answers(build_report(project, resamples=5).sections)
        scores = {name: project.answer_scores([name]) for name in ("binary", "graded", "subtopics", "preferences")}
    methods = ["binary", "graded", "preferences", "subtopics"]
    assert [f.name for f in section.figures] == [f"answers-{method}" for method in methods]
    for figure in section.figures:
        pixels = image.imread(io.BytesIO(figure.png), format="png")
        assert pixels.shape[:2] == (figure.height, figure.width)
    [table] = section.tables
    for name, rows in scores.items():
        shown = [r for r in table.rows if r["label set"] == name]
        assert [r["system"] for r in shown] == ["gpt-4", "lier-gpt-4"]  # by name, whatever the scores
        by_system = {r["system"]: r for r in rows}
        for row in shown:
            expected = by_system[str(row["system"])]
            assert row["score"] == expected["score"]
            assert row["95% interval"] == Interval(expected["low"], expected["high"])


def test_no_section_without_answers(sample_template: Path) -> None:
    with Project.open(sample_template, read_only=True) as project:
        assert answers(build_report(project, resamples=5).sections) == []
