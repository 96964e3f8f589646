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
from studio.services.audit.adaptive import topic_strata
from studio.services.audit.samples import audit_design
from studio.services.evaluation.engine import EvaluationEngine
from studio.store import audits as audit_store

DESIGNS = ("topics", "pairs")

# A unit's inclusion probability: keyed by qid (topics) or (qid, docid) (pairs).
Probabilities = Mapping[tuple[str, str] | str, float]


@dataclass(frozen=True)
class GoldDesign:
    """How a gold label set was drawn from the LLM set's pool; probabilities None: a simple
    random sample of the units it covers. `topic_strata`: every topic's design stratum when the
    topics were drawn stratum by stratum (`topics-neyman`), so that the variance is the stratified one."""

    design: str
    probabilities: Probabilities | None = None
    topic_strata: Mapping[str, int] | None = None


def estimate_design(drawn: str) -> str:
    """The estimate's design (topics or pairs) for an audit drawn with `drawn`."""
    return "topics" if drawn.startswith("topics") else "pairs"


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
    needed = estimate_design(drawn)
    if needed != design:
        raise UsageError(f"{gold} is an audit of {drawn}: use --design {needed}")
    return GoldDesign(design, probabilities, design_strata(engine, gold) if drawn == "topics-neyman" else None)


def design_strata(engine: EvaluationEngine, gold: str) -> dict[str, int] | None:
    """Every topic's stratum of a `topics-neyman` audit, recomputed from its LLM label set; None when
    the LLM labels changed since the draw (a stored unit's stratum or π disagrees), and the estimate
    then treats the draw as one stratum of unequal π (still unbiased, a little wider)."""
    con = engine.db.cursor()
    found = audit_store.audit(con, gold)
    if found is None:
        return None
    strata = topic_strata(con, found["label_set"], budget=found["budget"])
    label_of = dict(zip(strata.topics, strata.labels.tolist(), strict=True))
    sizes = strata.sizes()
    drawn = audit_store.units(con, found["audit_id"])
    per_stratum = {h: sum(1 for u in drawn if label_of.get(u["qid"]) == h) for h in range(len(sizes))}
    for unit in drawn:
        h = label_of.get(unit["qid"])
        if h is None or unit["stratum"] != strata.names[h] or abs(unit["inclusion"] - per_stratum[h] / sizes[h]) > 1e-9:
            return None
    return {q: int(h) for q, h in label_of.items()}


def stratified(units: Units, design: GoldDesign) -> Units:
    """`units` with the design's topic strata crossed with their own (topics the LLM set lacks)."""
    if design.topic_strata is None:
        return units
    count = max(design.topic_strata.values(), default=0) + 2
    own = units.strata if units.strata is not None else np.zeros(len(units.keys), dtype=np.int64)
    drawn = np.array([design.topic_strata.get(str(key), count - 1) for key in units.keys], dtype=np.int64)
    return Units(units.keys, units.a, units.b, units.sampled, units.runs, own * count + drawn)


@dataclass(frozen=True)
class Units:
    """Per-unit contributions of every run: `a` under gold (0 outside the gold sample), `b` under
    the LLM; the LLM-only value of each run is `b.sum(axis=0)`."""

    keys: list[str] | list[tuple[str, str]]
    a: np.ndarray  # (units × runs)
    b: np.ndarray
    sampled: np.ndarray  # (units,) 0/1: the unit has a gold label
    runs: list[str]
    strata: np.ndarray | None = None  # (units,) 0: the LLM set labels the unit, 1: it does not

    def probabilities(self, given: Probabilities | None) -> np.ndarray:
        """π of every unit: the given ones (a sampled unit without one is an error), else n/N."""
        count = len(self.keys)
        if given is None:
            return ppi.inclusion(self.sampled[None, :], self.strata) if count else np.ones(0)
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
    engine: EvaluationEngine,
    qrels: str,
    gold: str,
    measure: Measure,
    *,
    within: list[str] | None = None,
    llm_measure: Measure | None = None,
) -> Units:
    """Units = the topics `qrels` or `gold` labels (or `within`); a topic is sampled when `gold`
    labels it. Topics `qrels` lacks are a stratum of their own (no prediction, b = 0), never
    dropped. `llm_measure` is the measure at the LLM set's own relevance level (default `measure`)."""
    llm_eval, gold_eval = engine.evaluator(qrels), engine.evaluator(gold)
    gold_topics = labelled_qids(gold_eval)
    qids = within if within is not None else sorted(set(labelled_qids(llm_eval)) | set(gold_topics))
    llm = _rows(llm_eval, qids, llm_measure or measure)
    gold_values = _rows(gold_eval, qids, measure)
    sampled = np.array([q in set(gold_topics) for q in qids], dtype=np.float64)
    llm_labelled = set(labelled_qids(llm_eval))
    strata = np.array([0 if q in llm_labelled else 1 for q in qids], dtype=np.int64)
    # A run's population is the topics it ranks (trec_eval's mean is over them).
    rankings = engine.rankings().topics
    ranked = np.array(
        [rankings[q].lengths > 0 if q in rankings else np.zeros(len(llm_eval.runs), dtype=bool) for q in qids],
        dtype=bool,
    ).reshape(len(qids), len(llm_eval.runs))
    a, b = ppi.topic_units(llm, gold_values, counted=ranked)
    return Units(qids, a, b, sampled, llm_eval.runs, strata)
