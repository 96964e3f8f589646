"""Which labels a run pair's decision hangs on, and Review's queue narrowed to them."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio import Project
from studio.services.project import ReviewFilters

RUN_A, RUN_B = "rerank-strong", "lexical-bm25"


def pair_delta(project: Project, qrels: str) -> float:
    """The pair's difference recomputed from `studio eval --per-topic` rows."""
    rows = project.evaluate(qrels, ["nDCG@10"], per_topic=True)
    values = {(r["run"], r["topic"]): r["value"] for r in rows if r["topic"] != "all"}
    topics = {t for run, t in values if run == RUN_A} & {t for run, t in values if run == RUN_B}
    return float(sum(values[(RUN_A, t)] - values[(RUN_B, t)] for t in topics) / len(topics))


def test_each_change_is_what_the_edit_does_to_the_pairs_difference(sample: Path) -> None:
    with Project.open(sample) as project:
        found = project.decision_labels("human", "umbrela-smol", RUN_A, RUN_B)
        assert found["delta"] == pytest.approx(pair_delta(project, "umbrela-smol"))
        assert found["labels"], "the sample's LLM disagrees with people on documents both runs rank"
        changes = [abs(row["change"]) for row in found["labels"]]
        assert changes == sorted(changes, reverse=True)
        first = found["labels"][0]
        assert first["grade"] != first["ref_grade"] and first["retrieved_by"]
        before = pair_delta(project, "umbrela-smol")
        project.set_label("umbrela-smol", first["qid"], first["docid"], first["ref_grade"])
        assert pair_delta(project, "umbrela-smol") - before == pytest.approx(first["change"])


def test_review_filtered_to_a_decision_pair_queues_those_labels_most_deciding_first(sample: Path) -> None:
    with Project.open(sample) as project:
        behind = project.decision_labels("human", "umbrela-smol", RUN_A, RUN_B)["labels"]
        session = project.review("human", "umbrela-smol", filters=ReviewFilters(decision_pair=(RUN_A, RUN_B)))
        session.load()
        queued = [(p["qid"], p["docid"]) for p in session.queue]
        assert queued == [(row["qid"], row["docid"]) for row in behind]
        everything = project.review("human", "umbrela-smol")
        everything.load()
        assert len(everything.queue) > len(queued)  # a slice, not the whole queue


def test_an_unknown_run_is_refused(sample: Path) -> None:
    with Project.open(sample) as project, pytest.raises(ValueError, match="no run named 'nobody'"):
        project.decision_labels("human", "umbrela-smol", RUN_A, "nobody")
