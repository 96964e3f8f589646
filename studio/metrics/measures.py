"""The measures the studio computes: one spec each (its name, what it is, the parameters it takes,
its paper and its function), registered once in `MEASURES`, the table that parsing a name
(metrics/names.py), printing a `Measure` back and computing it (`topic_values`) all read.

Every function takes the topic's graded ranking matrix `G` (runs x depth; NaN where a document
is unjudged or past the end of a run), the topic's ranking and labels and the measure with its
parameters, and returns one value per run (metrics/trec_measures.py says how each is computed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

import numpy as np

from studio.metrics import trec_measures as tm
from studio.metrics.rankings import TopicLabels, TopicRanking


@dataclass(frozen=True, slots=True)
class Measure:
    """One measure with its parameters (`parse_measure` reads a name into one); `str()` gives the name back."""

    name: str
    cutoff: int | None = None
    rel: float = 1.0  # binary relevance: grade >= rel
    p: float = 0.95  # persistence of Compat

    def __str__(self) -> str:
        params = []
        spec = MEASURES.get(self.name)
        if spec is not None and spec.takes_p:
            params.append(f"p={self.p:g}")
        elif self.rel != 1.0:
            params.append(f"rel={self.rel:g}")
        text = self.name + (f"({','.join(params)})" if params else "")
        return text + (f"@{self.cutoff}" if self.cutoff is not None else "")


TopicFunction = Callable[[np.ndarray, TopicRanking, TopicLabels, Measure], np.ndarray]


class Cutoff(Enum):
    """Whether a measure takes a rank cutoff (`@k`)."""

    none = "none"
    optional = "optional"
    required = "required"


@dataclass(frozen=True)
class MeasureSpec:
    """One measure as `nDCG@10`, `P(rel=2)@10` or `Compat(p=0.9)` name it."""

    name: str
    description: str
    cutoff: Cutoff  # `@k`: with one, the measure reads the grades of the first k positions only
    takes_rel: bool  # `rel=`: binary relevance, a document counts when its grade is ≥ rel
    takes_p: bool  # `p=`: the persistence of Compat's rank-biased overlap
    compute: TopicFunction
    citation: str

    @property
    def takes_cutoff(self) -> bool:
        return self.cutoff is not Cutoff.none


def _ndcg(G: np.ndarray, topic: TopicRanking, labels: TopicLabels, measure: Measure) -> np.ndarray:
    return tm.ndcg(G, labels, measure.cutoff)


def _precision(G: np.ndarray, topic: TopicRanking, labels: TopicLabels, measure: Measure) -> np.ndarray:
    return tm.precision(G, measure.rel, measure.cutoff or 0)


def _recall(G: np.ndarray, topic: TopicRanking, labels: TopicLabels, measure: Measure) -> np.ndarray:
    return tm.recall(G, labels, measure.rel, measure.cutoff)


def _average_precision(G: np.ndarray, topic: TopicRanking, labels: TopicLabels, measure: Measure) -> np.ndarray:
    return tm.average_precision(G, labels, measure.rel, measure.cutoff)


def _reciprocal_rank(G: np.ndarray, topic: TopicRanking, labels: TopicLabels, measure: Measure) -> np.ndarray:
    return tm.reciprocal_rank(G, measure.rel, measure.cutoff)


def _r_precision(G: np.ndarray, topic: TopicRanking, labels: TopicLabels, measure: Measure) -> np.ndarray:
    return tm.r_precision(G, labels, measure.rel)


def _judged(G: np.ndarray, topic: TopicRanking, labels: TopicLabels, measure: Measure) -> np.ndarray:
    return tm.judged(G, topic.lengths, measure.cutoff or 0)


def _compatibility(G: np.ndarray, topic: TopicRanking, labels: TopicLabels, measure: Measure) -> np.ndarray:
    return tm.compatibility(topic, labels, measure.p)


_SPECS = (
    MeasureSpec(
        "nDCG",
        "Normalised discounted cumulative gain: the grades as gains, discounted by log2 of the rank "
        "plus one, over those of the ideal ranking of the topic's labels.",
        Cutoff.optional,
        takes_rel=False,
        takes_p=False,
        compute=_ndcg,
        citation="Järvelin and Kekäläinen, Cumulated gain-based evaluation of IR techniques, ACM TOIS 20(4), 2002",
    ),
    MeasureSpec(
        "P",
        "Precision at k: the share of the first k positions holding a relevant document.",
        Cutoff.required,
        takes_rel=True,
        takes_p=False,
        compute=_precision,
        citation="van Rijsbergen, Information Retrieval (2nd ed.), Butterworths, 1979, ch. 7",
    ),
    MeasureSpec(
        "R",
        "Recall at k: the share of the topic's relevant documents found in the first k positions.",
        Cutoff.required,
        takes_rel=True,
        takes_p=False,
        compute=_recall,
        citation="van Rijsbergen, Information Retrieval (2nd ed.), Butterworths, 1979, ch. 7",
    ),
    MeasureSpec(
        "AP",
        "Average precision: the mean of the precision at the rank of each relevant document, a "
        "relevant document not retrieved counting 0.",
        Cutoff.optional,
        takes_rel=True,
        takes_p=False,
        compute=_average_precision,
        citation="Buckley and Voorhees, Retrieval System Evaluation, in TREC: Experiment and Evaluation "
        "in Information Retrieval, MIT Press, 2005",
    ),
    MeasureSpec(
        "RR",
        "Reciprocal rank: one over the rank of the first relevant document (0 without one).",
        Cutoff.optional,
        takes_rel=True,
        takes_p=False,
        compute=_reciprocal_rank,
        citation="Kantor and Voorhees, The TREC-5 Confusion Track, Information Retrieval 2(2/3), 2000",
    ),
    MeasureSpec(
        "Rprec",
        "R-precision: the precision at R, R the number of the topic's relevant documents.",
        Cutoff.none,
        takes_rel=True,
        takes_p=False,
        compute=_r_precision,
        citation="Buckley and Voorhees, Retrieval System Evaluation, in TREC: Experiment and Evaluation "
        "in Information Retrieval, MIT Press, 2005",
    ),
    MeasureSpec(
        "Judged",
        "Judged at k: the share of the first k documents retrieved that have a label.",
        Cutoff.required,
        takes_rel=False,
        takes_p=False,
        compute=_judged,
        citation="MacAvaney, Macdonald and Ounis, Streamlining Evaluation with ir-measures, ECIR 2022",
    ),
    MeasureSpec(
        "Compat",
        "Compatibility: the rank-biased overlap of the run with the ideal ranking of the topic's "
        "positive grades, over that of the ideal ranking with itself.",
        Cutoff.none,
        takes_rel=False,
        takes_p=True,
        compute=_compatibility,
        citation="Clarke, Vtyurina and Smucker, Assessing Top-k Preferences, ACM TOIS 39(3), 2021",
    ),
)

MEASURES: dict[str, MeasureSpec] = {spec.name: spec for spec in _SPECS}


def topic_values(measure: Measure, topic: TopicRanking, labels: TopicLabels) -> np.ndarray:
    """One value per run for this topic; NaN for runs that retrieved nothing for it."""
    spec = MEASURES[measure.name]
    # A measure with a cutoff reads the grades of the first k positions only (R-precision reads
    # as many as the topic has relevant documents, Compat its own order): only those are gathered.
    G = tm.graded_matrix(topic, labels, measure.cutoff if spec.takes_cutoff else None)
    values = spec.compute(G, topic, labels, measure)
    return np.where(topic.lengths > 0, values, np.nan)
