"""The report's significance section: the decision agreement of each label set against the
reference, as `Project.significance` computes it, and a matrix figure per label set."""

from __future__ import annotations

from pathlib import Path

import pytest
from decision_classes_project import MEASURE, build

from studio.domain.report import Section
from studio.services.project import Project
from studio.services.report.build import build_report
from studio.services.report.cells import FigureNames
from studio.services.report.significance_section import significance_section


@pytest.fixture()
def classes_project(tmp_path: Path) -> Path:
    return build(tmp_path / "classes.duckdb")


def significance_of(project: Project) -> Section:
    report = build_report(project, ref="human", measure=MEASURE, resamples=10)
    [section] = [s for s in report.sections if s.key == "significance"]
    return section


def test_the_section_counts_each_class_as_project_significance_does(classes_project: Path) -> None:
    with Project.open(classes_project) as project:
        expected = project.significance("llm", MEASURE, ref="human")
        section = significance_of(project)
    [table] = section.tables
    [row] = table.rows
    agreement = expected["agreement"]
    titles = {"both": "both", "opposite": "opposite", "ref_only": "reference only", "qrels_only": "audited only"}
    counts: dict[str, object] = dict(agreement)
    assert {kind: row[title] for kind, title in titles.items()} == {kind: counts[kind] for kind in titles}
    assert row["neither"] == agreement["neither"]
    assert (row["precision"], row["recall"]) == (agreement["precision"], agreement["recall"])
    assert row["τ top 5"] == expected["top_k_tau"]["5"]
    best = expected["best_run"]
    assert best is not None and row["best run"] == best["run"]
    assert row["beats all (reference / audited)"] == "yes / no"


def test_top_k_columns_only_where_there_are_k_runs(classes_project: Path) -> None:
    with Project.open(classes_project) as project:
        [table] = significance_of(project).tables
    assert "τ top 5" in table.columns and "τ top 10" not in table.columns  # five runs


def test_a_matrix_figure_per_compared_label_set(classes_project: Path) -> None:
    with Project.open(classes_project) as project:
        section = significance_of(project)
    [figure] = section.figures
    assert figure.name == "significance-llm" and figure.png.startswith(b"\x89PNG")
    assert "llm against human" in figure.caption


def test_no_section_without_a_label_set_to_compare(classes_project: Path) -> None:
    with Project.open(classes_project) as project:
        assert significance_section(project, "human", [], MEASURE, FigureNames()) == []
