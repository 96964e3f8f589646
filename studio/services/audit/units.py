"""The units an estimate from a partial audit is over: an LLM label set's topics or its judged
pairs, each with its contribution to every run's measure under LLM and under gold labels.

`gold_design` is where an audit's stored inclusion probabilities enter; without them a gold
label set is taken as a simple random sample of the LLM set's topics or pairs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from studio.domain.errors import UsageError
from studio.metrics import ppi
from studio.metrics.evaluator import Evaluator
from studio.metrics.names import Measure
from studio.services.audit.samples import audit_design
from studio.services.evaluation.engine import EvaluationEngine
from studio.store import audits as audit_store

DESIGNS = ("topics", "pairs")

# A unit's inclusion probability: keyed by qid (topics) or (qid, docid) (pairs).
Probabilities = Mapping[tuple[str, str] | str, float]


@dataclass(frozen=True)
class GoldDesign:
    """How a gold label set was drawn from the LLM set's pool; probabilities None: a simple
    random sample of the units it covers."""

    design: str
    probabilities: Probabilities | None = None


def gold_design(engine: EvaluationEngine, gold: str, design: str) -> GoldDesign:
    """The design and inclusion probabilities behind a gold label set.

    A gold set imported or labelled by hand carries no record of how its units were chosen, so
    it is taken as a simple random sample (π = n/N), the reading under which its own mean is
    unbiased too. An audit (`studio audit plan`) stores each unit's π, and its design decides."""
    engine.label_set_id(gold)  # refuses an unknown name before any work
    if design not in DESIGNS:
        raise UsageError(f"unknown design {design!r} (known: {', '.join(DESIGNS)})")
    if audit_store.audit(engine.db.cursor(), gold) is None:
        return GoldDesign(design)
    drawn, probabilities = audit_design(engine, gold)
    # A pair sample leaves topics partly graded (no topic value), and whole topics are a cluster
    # sample of pairs (the pair variance formula would ignore the clustering).
    needed = "topics" if drawn == "topics" else "pairs"
    if needed != design:
        raise UsageError(f"{gold} is an audit of {drawn}: use --design {needed}")
    return GoldDesign(design, probabilities)


@dataclass(frozen=True)
class Units:
    """Per-unit contributions of every run: `a` under gold (0 outside the gold sample), `b` under
    the LLM; the LLM-only value of each run is `b.sum(axis=0)`."""

    keys: list[str] | list[tuple[str, str]]
    a: np.ndarray  # (units × runs)
    b: np.ndarray
    sampled: np.ndarray  # (units,) 0/1: the unit has a gold label
    runs: list[str]

    def probabilities(self, given: Probabilities | None) -> np.ndarray:
        """π of every unit: the given ones (a sampled unit without one is an error), else n/N."""
        count = len(self.keys)
        if given is None:
            return np.full(count, max(self.sampled.sum(), 1.0) / max(count, 1))
        lookup: Mapping[tuple[str, str] | str, float] = given
        pi = np.array([lookup.get(key, np.nan) for key in self.keys], dtype=np.float64)
        missing = np.isnan(pi) & (self.sampled > 0)
        if missing.any():
            raise UsageError(f"{int(missing.sum())} gold units have no inclusion probability")
        return np.where(np.isnan(pi), 1.0, pi)


def _rows(evaluator: Evaluator, qids: list[str], measure: Measure) -> np.ndarray:
    """Per-topic values of `qids` (NaN for a topic the evaluator has no labels for)."""
    matrix = evaluator.per_topic(measure)
    labelled = evaluator.qrels_topics()
    out = np.full((len(qids), len(evaluator.runs)), np.nan)
    for i, qid in enumerate(qids):
        row = evaluator.row.get(qid)
        if row is not None and labelled[row]:
            out[i] = matrix[row]
    return out


def labelled_qids(evaluator: Evaluator) -> list[str]:
    return [q for q, on in zip(evaluator.qids, evaluator.qrels_topics(), strict=True) if on]


def topic_units(
    engine: EvaluationEngine, qrels: str, gold: str, measure: Measure, *, within: list[str] | None = None
) -> Units:
    """Units = the topics `qrels` labels (or `within`); a topic is sampled when `gold` labels it."""
    llm_eval, gold_eval = engine.evaluator(qrels), engine.evaluator(gold)
    qids = within if within is not None else labelled_qids(llm_eval)
    llm = _rows(llm_eval, qids, measure)
    gold_values = _rows(gold_eval, qids, measure)
    sampled = np.array([q in set(labelled_qids(gold_eval)) for q in qids], dtype=np.float64)
    a, b = ppi.topic_units(llm, gold_values)
    return Units(qids, a, b, sampled, llm_eval.runs)


def check_pairs_measure(measure: Measure) -> None:
    if measure.name != "P":
        raise UsageError(
            f"--design pairs needs a measure that is a sum over judged pairs (P@k); {measure} is not "
            f"(nDCG divides by each topic's ideal DCG, a ratio of two sums): use --design topics"
        )


def pair_units(
    engine: EvaluationEngine, qrels: str, gold: str, measure: Measure, *, missing_is_unjudged: bool = False
) -> Units:
    """Units = the pairs `qrels` labels; a pair is sampled when `gold` labels it too (with
    `missing_is_unjudged`, every pair is, a gold grade it lacks counting as not relevant)."""
    check_pairs_measure(measure)
    cutoff = measure.cutoff or 0
    llm_eval, gold_eval = engine.evaluator(qrels), engine.evaluator(gold)
    runs = llm_eval.runs
    per_topic = llm_eval.per_topic(measure)
    counts = (~np.isnan(per_topic[llm_eval.qrels_topics()])).sum(axis=0)
    keys: list[tuple[str, str]] = []
    tops: list[np.ndarray] = []
    llm_grades: list[float] = []
    gold_grades: list[float] = []
    for qid in labelled_qids(llm_eval):
        labels = llm_eval.labels[qid]
        topic = engine.rankings().topics.get(qid)
        gold_judged = gold_eval.labels[qid].judged if qid in gold_eval.labels else {}
        top = np.zeros((len(runs), (topic.size if topic else 0) + 1), dtype=bool)  # last column: not ranked
        if topic is not None:
            head = topic.order[:, :cutoff]
            run_of = np.broadcast_to(np.arange(len(runs))[:, None], head.shape)
            top[run_of[head >= 0], head[head >= 0]] = True
        for docid, grade in labels.judged.items():
            keys.append((qid, docid))
            tops.append(top[:, labels.numbers.get(docid, -1)])
            llm_grades.append(grade)
            gold_grades.append(gold_judged.get(docid, 0.0 if missing_is_unjudged else np.nan))
    in_top = np.array(tops, dtype=np.float64).reshape(len(keys), len(runs))
    gold_array = np.array(gold_grades, dtype=np.float64)
    sampled = (~np.isnan(gold_array)).astype(np.float64)
    with np.errstate(invalid="ignore"):
        gold_relevant = np.where(sampled > 0, gold_array >= measure.rel, 0.0)
    llm_relevant = (np.array(llm_grades, dtype=np.float64) >= measure.rel).astype(np.float64)
    a, b = ppi.pair_units(in_top, counts, cutoff, llm_relevant, gold_relevant)
    return Units(keys, a, b, sampled, runs)
