"""For random label sets over random topic subsets, every comparison's frame is the intersection of
the topics they label, and every comparison gives what it gives on the label sets cut to it by hand."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from evaluation_builders import Qrels, write_qrels, write_run
from frames.frame_builders import cut
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from studio import Project
from studio.domain.frames import TopicChoice, TopicScope
from studio.domain.specs import AgreementSpec, ComparisonSpec

TOPICS = ["q1", "q2", "q3", "q4", "q5", "q6"]
DOCS = ["d1", "d2", "d3", "d4", "d5", "d6"]
RUNS = ["r1", "r2", "r3", "r4"]


@st.composite
def label_sets(draw: st.DrawFn) -> tuple[Qrels, Qrels, dict[str, dict[str, dict[str, float]]]]:
    """Two label sets on topic subsets that share at least one topic, and runs over every topic."""
    shared = draw(st.sampled_from(TOPICS))
    topics_a = draw(st.sets(st.sampled_from(TOPICS))) | {shared}
    topics_b = draw(st.sets(st.sampled_from(TOPICS))) | {shared}
    grade = st.integers(min_value=0, max_value=3)

    def labels(topics: set[str]) -> Qrels:
        return {
            qid: draw(st.dictionaries(st.sampled_from(DOCS), grade, min_size=1, max_size=len(DOCS)))
            for qid in sorted(topics)
        }

    score = st.integers(min_value=0, max_value=20).map(float)
    runs = {
        run: {qid: draw(st.dictionaries(st.sampled_from(DOCS), score, min_size=1)) for qid in TOPICS} for run in RUNS
    }
    return labels(topics_a), labels(topics_b), runs


def without_names(value: Any) -> Any:
    """A result with what names the label sets (and the frame, which names them too) left out."""
    if isinstance(value, dict):
        return {k: without_names(v) for k, v in value.items() if k not in ("ref", "qrels", "frame", "warnings")}
    if isinstance(value, list):
        return [without_names(v) for v in value]
    return value


def project_of(folder: Path, a: Qrels, b: Qrels, runs: dict[str, dict[str, dict[str, float]]]) -> Project:
    common = set(a) & set(b)
    project = Project.open(folder / "p.duckdb")
    project.import_runs([write_run(folder / f"{name}.run", name, run) for name, run in runs.items()])
    for name, qrels in (("a", a), ("b", b), ("a-cut", cut(a, common)), ("b-cut", cut(b, common))):
        project.import_qrels(write_qrels(folder / f"{name}.txt", qrels), name=name)
    return project


@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(label_sets())
def test_every_comparison_is_that_of_the_label_sets_cut_to_the_topics_both_label(
    drawn: tuple[Qrels, Qrels, dict[str, dict[str, dict[str, float]]]],
) -> None:
    a, b, runs = drawn
    with tempfile.TemporaryDirectory() as folder, project_of(Path(folder), a, b, runs) as project:
        frame = project.comparison_frame("a", "b")
        assert set(frame.common) == set(a) & set(b)
        assert set(frame.ref_only) == set(a) - set(b) and set(frame.qrels_only) == set(b) - set(a)
        assert project.comparison_frame("a-cut", "b-cut").whole
        for measure in ("nDCG@10", "AP"):
            framed = project.correlation("a", "b", measure, seed=3)
            by_hand = project.correlation("a-cut", "b-cut", measure, seed=3)
            assert framed["frame"] is not None and framed["frame"]["topics"] == len(frame.common)
            assert without_names(framed) == without_names(by_hand)
            assert without_names(project.significance("b", measure, ref="a")) == without_names(
                project.significance("b-cut", measure, ref="a-cut")
            )
        assert without_names(project.agreement(AgreementSpec("a", "b"))) == without_names(
            project.agreement(AgreementSpec("a-cut", "b-cut"))
        )
        assert without_names(project.compare(ComparisonSpec("a", ["b"], resamples=50))) == without_names(
            project.compare(ComparisonSpec("a-cut", ["b-cut"], resamples=50))
        )
        assert project.disagreements("a", "b") == project.disagreements("a-cut", "b-cut")
        session, cut_session = project.review("a", "b"), project.review("a-cut", "b-cut")
        session.load()
        cut_session.load()
        figures, cut_figures = session.stats(), cut_session.stats()
        assert (figures.tau, figures.kappa) == (cut_figures.tau, cut_figures.kappa)
        own = project.correlation("a", "b", topics=TopicChoice(TopicScope.own))
        assert [row["ref"] for row in own.get("leaderboard", [])] == list(project.leaderboard("a", "nDCG@10").values())
