"""Significance tests between runs and the agreement of two label sets' decisions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from studio.domain.frames import EVERY_TOPIC, TopicChoice
from studio.domain.significance import DEFAULT_PLAN, DecisionLabels, Significance, SignificancePlan
from studio.services.facade.base import ProjectBase
from studio.services.facade.lazy import lazy_module

if TYPE_CHECKING:
    from studio.domain.pair_decisions import PairLabels
    from studio.services.significance import labels, pair_labels, pairs
else:
    labels = lazy_module("studio.services.significance.labels")
    pair_labels = lazy_module("studio.services.significance.pair_labels")
    pairs = lazy_module("studio.services.significance.pairs")


class SignificanceMixin(ProjectBase):
    """Which run differences a label set calls significant, and whether another agrees."""

    def significance(
        self,
        qrels: str,
        measure: str = "nDCG@10",
        plan: SignificancePlan = DEFAULT_PLAN,
        *,
        runs: list[str] | None = None,
        ref: str | None = None,
        topics: TopicChoice = EVERY_TOPIC,
    ) -> Significance:
        """Every pair of runs tested under `qrels` (t, randomization, bootstrap or Tukey's HSD),
        p-values corrected over the pairs; with `ref`, both label sets tested alike on the topics
        both label (`topics`: each side's own, or a subset) and their decisions compared pair by
        pair (see `studio significance`)."""
        return pairs.significance(self.engine, qrels, measure, plan, runs=runs, ref=ref, topics=topics)

    def decision_labels(self, ref: str, qrels: str, run_a: str, run_b: str, measure: str = "nDCG@10") -> DecisionLabels:
        """The labels of `qrels` that the reference grades otherwise, on documents run_a or run_b
        ranks within the measure's depth, each with the change in the pair's difference were it to
        take the reference's grade; the largest |change| first. Review shows them as a queue with
        `ReviewFilters(decision_pair=(run_a, run_b))`."""
        return labels.decision_labels(self.engine, ref, qrels, run_a, run_b, measure)

    def pair_labels(
        self,
        ref: str,
        qrels: str,
        run_a: str,
        run_b: str,
        measure: str = "nDCG@10",
        plan: SignificancePlan = DEFAULT_PLAN,
        *,
        runs: list[str] | None = None,
        limit: int | None = None,
    ) -> PairLabels:
        """The pair's decision under both label sets (tested among every pair of `runs`, as
        `significance` tests it) and the `decision_labels` behind it, at most `limit` of them
        (see `studio significance --pair`)."""
        return pair_labels.pair_labels(self.engine, ref, qrels, run_a, run_b, measure, plan, runs=runs, limit=limit)
