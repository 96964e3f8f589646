"""The live view's correlation (`details=False`) after an edit keeps what the edit cannot change
(the reference side, the frame) and gives the figures the full computation gives, bit for bit:
edits inside a topic, a topic's last label removed and a new topic labelled, edits of the
reference itself, complete means, a topic subset and a measure with no value on a topic without
a positive grade (Compat), with a run that retrieves one topic only."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from studio import Project
from studio.domain.frames import EVERY_TOPIC, ComparisonFrame, TopicChoice
from studio.services.meta import rank_correlation
from studio.services.meta.frame import comparison_frame

LLM = "umbrela-smol"
SUBSET = TopicChoice(subset=("1001", "1002", "1004", "1007"))
# (measure, keyword arguments of Project.correlation)
VIEWS: list[tuple[str, dict[str, Any]]] = [
    ("nDCG@10", {}),
    ("P(rel=2)@10", {"llm_relevant": 1.0}),
    ("AP", {"complete": True}),
    ("RR", {"topics": SUBSET}),
    ("Compat", {}),
    ("Compat", {"topics": TopicChoice(subset=("1001", "1002"))}),
]
NARROW = "1002"  # the one topic the run `narrow` retrieves


def full(project: Project, measure: str, options: dict[str, Any]) -> dict[str, Any]:
    """The correlation computed from nothing kept (what was kept is put back afterwards)."""
    kept = dict(project.engine.kept_views)
    project.engine.kept_views.clear()
    try:
        return dict(project.correlation("human", LLM, measure, details=False, **options))
    finally:
        project.engine.kept_views.clear()
        project.engine.kept_views.update(kept)


def live(project: Project, measure: str, options: dict[str, Any]) -> dict[str, Any]:
    return dict(project.correlation("human", LLM, measure, details=False, **options))


def labels_of(project: Project, name: str = LLM) -> dict[str, Any]:
    return dict(project.engine.evaluator(name).labels)


def pairs_of(project: Project, name: str) -> list[tuple[str, str]]:
    labels = project.engine.evaluator(name).labels
    return sorted((qid, docid) for qid, topic in labels.items() for docid in topic.judged)


def with_narrow_run(project: Project, folder: Path) -> None:
    """A run that retrieves one topic: where that topic has no positive grade, Compat evaluates it
    on no topic of a frame of two, and it leaves the ranking (the kept runs change)."""
    docids = sorted(d for q, d in pairs_of(project, "human") if q == NARROW)
    path = folder / "narrow.txt"
    path.write_text("".join(f"{NARROW} Q0 {d} {i} {100 - i} narrow\n" for i, d in enumerate(docids, start=1)))
    project.import_runs(path)


def test_live_figures_equal_the_full_computation_after_every_kind_of_edit(sample: Path, tmp_path: Path) -> None:
    rng = random.Random(7)
    with Project.open(sample) as project:
        with_narrow_run(project, tmp_path)
        for measure, options in VIEWS:
            live(project, measure, options)  # kept from here on
        topic = "1003"
        edits: list[tuple[str, str, str, float | None]] = []
        for qid, docid in pairs_of(project, LLM):
            if qid == topic:  # every label of a topic removed, one by one: the frame loses it
                edits.append((LLM, qid, docid, None))
        edits += [(LLM, topic, "p1003-01", 3.0)]  # and back
        positive = [(q, d) for q, d in pairs_of(project, LLM) if q == NARROW and labels_of(project)[q].judged[d] > 0]
        edits += [(LLM, q, d, 0.0) for q, d in positive] + [(LLM, *positive[0], 2.0)]  # Compat's value goes and comes
        edits += [(LLM, "new-topic", "some-doc", 2.0)]  # a topic no run retrieves
        drawn = [(LLM, q, d, float(rng.randint(0, 3))) for q, d in rng.sample(pairs_of(project, LLM), 25)]
        drawn += [("human", q, d, float(rng.randint(0, 3))) for q, d in rng.sample(pairs_of(project, "human"), 5)]
        rng.shuffle(drawn)  # edits of either side, in a drawn order
        edits += drawn
        for name, qid, docid, grade in edits:
            project.set_label(name, qid, docid, grade, person="ana")
            for measure, options in VIEWS:
                assert live(project, measure, options) == full(project, measure, options), (measure, qid, docid)


def test_an_edit_inside_a_labelled_topic_reuses_the_frame_and_the_reference(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Project.open(sample) as project:
        project.correlation("human", LLM, "nDCG@10", details=False)
        framed: list[tuple[object, ...]] = []
        frame = comparison_frame

        def counted(*args: Any, **kwargs: Any) -> ComparisonFrame:
            framed.append(args)
            return frame(*args, **kwargs)

        monkeypatch.setattr(rank_correlation, "comparison_frame", counted)
        qid, docid = pairs_of(project, LLM)[0]
        grade = project.engine.evaluator(LLM).labels[qid].judged[docid]
        project.set_label(LLM, qid, docid, (grade + 1) % 4)
        edited = project.correlation("human", LLM, "nDCG@10", details=False)
        assert framed == []  # nothing of the reference side or the frame worked out again
        project.set_label("human", qid, docid, 3.0)  # the reference changed: all of it again
        project.correlation("human", LLM, "nDCG@10", details=False)
        assert len(framed) == 1
        project.correlation("human", LLM, "nDCG@10", details=True)  # the full result never reuses
        assert len(framed) == 2
    assert edited["kendall_tau"] is not None and edited["topics"] == 10


def test_a_topic_choice_or_measure_of_its_own_keeps_its_own_sides(sample: Path) -> None:
    with Project.open(sample) as project:
        every = project.correlation("human", LLM, "RR", details=False, topics=EVERY_TOPIC)
        some = project.correlation("human", LLM, "RR", details=False, topics=SUBSET)
        assert some["topics"] == len(SUBSET.subset or ()) and every["topics"] == 10
        assert project.correlation("human", LLM, "RR", details=False, topics=EVERY_TOPIC) == every
        assert project.correlation("human", LLM, "RR", details=False, topics=SUBSET) == some
