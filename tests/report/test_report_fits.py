"""A report that fits what the project holds: a project without runs gets no τ, subsampling or
significance figure, a project of many label sets one alignment figure over them all rather than
one each (the 474-set prompt study's report was 54.7 MB of empty plots); small statistics keep
their digits; ids sort naturally; the α figure's labels never overlap."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
from matplotlib import style

from studio import Project
from studio.domain.natural_order import natural_sorted
from studio.domain.prompt_study import StudyAlpha, StudyCell, StudyReport
from studio.formats.report_writers import format_number
from studio.services.report.build import build_report
from studio.services.report.study_figures import alpha_figure
from studio.services.report.study_section import _cell_rows
from studio.services.report.summary_figures import MAX_SET_FIGURES

TOPICS = [str(q) for q in range(1, 7)]


def labels_only_project(folder: Path, sets: int) -> Path:
    """The people's grades of six topics and `sets` noisy copies of them as LLM label sets; no run."""
    rng = random.Random(7)
    truth = {(q, f"d{q}-{k}"): k % 4 for q in TOPICS for k in range(12)}
    db = folder / "labels.duckdb"
    with Project.open(db) as project:
        (folder / "topics.tsv").write_text("".join(f"{q}\ttopic {q}\n" for q in TOPICS))
        project.import_topics(folder / "topics.tsv")
        (folder / "human.qrels").write_text("".join(f"{q} 0 {d} {g}\n" for (q, d), g in truth.items()))
        project.import_qrels(folder / "human.qrels", name="human")
        for n in range(sets):
            path = folder / f"llm-{n}.qrels"
            path.write_text(
                "".join(f"{q} 0 {d} {min(3, max(0, g + rng.choice((-1, 0, 1))))}\n" for (q, d), g in truth.items())
            )
            project.import_qrels(path, name=f"llm-{n}", kind="llm")
    return db


def figure_names(db: Path) -> list[str]:
    with Project.open(db) as project:
        return [f.name for f in build_report(project, resamples=5).figures()]


def test_a_project_without_runs_gets_no_leaderboard_figure(tmp_path: Path) -> None:
    db = labels_only_project(tmp_path, 2)
    with Project.open(db) as project:
        report = build_report(project, resamples=5)
    names = [f.name for f in report.figures()]
    assert names == ["alignment-llm-0", "alignment-llm-1"]  # label agreement needs no run; the rest does
    scatter = next(s for s in report.sections if s.key == "scatter")
    assert scatter.notes == ["No run is loaded: there is no leaderboard to plot."]
    subsampling = next(s for s in report.sections if s.key == "subsampling")
    assert subsampling.figures == [] and subsampling.tables[0].rows == []
    assert subsampling.tables[0].empty == "no run loaded: no leaderboard to subsample"


def test_many_label_sets_get_one_alignment_figure(tmp_path: Path) -> None:
    db = labels_only_project(tmp_path, MAX_SET_FIGURES + 1)
    assert figure_names(db) == ["alignment"]


def test_with_runs_and_few_label_sets_every_figure_stays(sample: Path) -> None:
    names = figure_names(sample)
    assert {"alignment-umbrela-smol", "tau-umbrela-smol", "tau-topic-run-umbrela-smol", "subsampling"} <= set(names)


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.0004, "0.0004"), (0.00042137, "0.00042"), (-0.0004, "-0.0004"), (1e-17, "0.000"), (-1e-17, "0.000"),
     (0.0, "0.000"), (0.0006, "0.001"), (0.12345, "0.123")],
)  # fmt: skip
def test_small_statistics_keep_their_digits(value: float, text: str) -> None:
    assert format_number(value) == text


def test_ids_sort_naturally() -> None:
    ids = ["10", "2", "1", "0", "LLM-10", "LLM-2", "human-11", "human-3"]
    assert natural_sorted(ids) == ["0", "1", "2", "10", "human-3", "human-11", "LLM-2", "LLM-10"]


def cell(prompt: str, group: str = "people", collection: str = "dl20") -> StudyCell:
    return StudyCell(
        label_set=f"s-{prompt}-{collection}",
        prompt=prompt,
        group=group,
        model="-" if group == "reference" else "m",
        method="binary",
        collection=collection,
        agreement=0.5,
        pairs=10,
        kendall_tau=None,
        position_bias=None,
        tie_rate=None,
    )


def test_the_per_prompt_table_names_each_collection_and_counts_naturally() -> None:
    cells = [cell(p, collection=c) for c in ("dl21", "dl20") for p in ("10", "2", "1")]
    cells.append(cell("umbrela", "reference", "-"))
    report = StudyReport(
        ref="human",
        variance="sample",
        ref_relevant=2.0,
        relevant=1.0,
        binarise_ref=None,
        pool_collections=False,
        cells=cells,
        groups=[],
        table=[],
        alpha=[],
        lexical_diversity=[],
    )
    rows = [(r["collection"], r["prompt"]) for r in _cell_rows(report)]
    assert rows == [
        ("dl20", "1"),
        ("dl20", "2"),
        ("dl20", "10"),
        ("dl21", "1"),
        ("dl21", "2"),
        ("dl21", "10"),
        ("-", "umbrela"),
    ]


def test_the_alpha_figures_labels_never_overlap() -> None:
    rows = [
        StudyAlpha(
            model=model,
            group=group,
            method=method,
            collection=collection,
            alpha=0.4,
            level="nominal",
            prompts=20,
            units=2000,
        )
        for model, method, collection, group in itertools.product(
            ("gpt-4o-2024-08-06", "llama-3.1-70b-instruct"),
            ("binary", "graded", "pairwise"),
            ("dl20", "dl21"),
            ("people", "llm"),
        )
    ]
    with style.context("default"):
        figure, _ = alpha_figure(rows)
        figure.draw_without_rendering()
        boxes = [label.get_window_extent() for label in figure.axes[0].get_xticklabels()]
    assert len(boxes) == 12
    for a, b in itertools.combinations(boxes, 2):
        assert not a.overlaps(b), (a, b)
    assert all(box.x0 >= 0 and box.y0 >= 0 for box in boxes)  # inside the canvas


def test_with_runs_and_many_label_sets_no_figure_each(sample: Path, tmp_path: Path) -> None:
    """Past MAX_SET_FIGURES label sets, the run plots (scatter, subsampling, significance) give way to
    their tables and a note; alignment draws one figure over them all."""
    labels = (Path(__file__).resolve().parents[2] / "sample_data/qrels/human.txt").read_text().splitlines()
    rng = random.Random(3)
    with Project.open(sample) as project:
        for n in range(MAX_SET_FIGURES):
            path = tmp_path / f"copy-{n}.qrels"
            path.write_text("".join(f"{line.rsplit(maxsplit=1)[0]} {rng.randint(0, 3)}\n" for line in labels))
            project.import_qrels(path, name=f"copy-{n:02d}", kind="llm")
        report = build_report(project, resamples=5)
    names = [f.name for f in report.figures()]
    assert "alignment" in names and not any(n.startswith(("alignment-", "tau-", "significance-")) for n in names)
    assert "subsampling" not in names
    scatter = next(s for s in report.sections if s.key == "scatter")
    assert scatter.notes == [
        f"{MAX_SET_FIGURES + 1} label sets: a plot each is drawn up to {MAX_SET_FIGURES} label sets; "
        "the comparison table gives each one's τ."
    ]
