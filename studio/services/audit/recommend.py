"""`studio audit plan --budget N` without a name: which design to draw, by a quick simulation of
each at the user's budget, for coverage first and width second.

A design is judged against a truth it cannot see in a real audit, so the simulation needs a stand-in.
A pilot (human grades of some of the pool) is the honest one: its topics are the population and
its grades the truth, and the estimates use the LLM labels as `studio estimate` would. Without a
pilot the only labels are the LLM's own; an estimate that uses them would be exact against them
(circular), so the simulation takes them as the truth and judges the gold-only intervals: how each
design copes with how unevenly the measure varies over topics and pairs, not how good the judge is.

Topic designs undercover when per-topic differences are heavy-tailed (a few topics where the LLM
and people part ways far more than elsewhere): with 20 of TREC DL 2019's 43 topics, GPT-4's labels
give 0.89 against 0.95 nominal, gold-only 0.925. A design whose simulated coverage falls below
TARGET_COVERAGE is recommended only when no design reaches it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from studio.domain.audit_designs import DesignRecommendation, SimulatedDesign
from studio.domain.errors import UsageError
from studio.domain.specs import AuditSimulationSpec
from studio.metrics import ppi
from studio.services.audit.adaptive import PAIRS_UNCERTAINTY, TOPICS_NEYMAN
from studio.services.audit.simulation import simulate
from studio.services.evaluation.engine import EvaluationEngine
from studio.store import audits as audit_store

TARGET_COVERAGE = 0.93  # of 0.95 nominal: below it the intervals are not what they claim
# A pilot grading less than this share of the pool's pairs on its topics is a poor truth: every pair
# it lacks counts as not relevant, and a 300-pair pilot of TREC DL 2019 (7 of 215 pairs a topic)
# made even the pair designs cover 0.6 against it.
SPARSE_PILOT = 0.5
DESIGN_ORDER = ("topics", TOPICS_NEYMAN, "pairs", PAIRS_UNCERTAINTY)


class Basis(NamedTuple):
    """What the designs are simulated against: the truth's label set and topics, and the pool's shape."""

    qrels: str  # the LLM label set whose pool is audited
    pilot: str | None
    truth: str  # the pilot, or without one the LLM set itself
    truth_pairs: int  # pairs the truth grades
    topics: set[str]  # the truth's topics: the population
    pool_on_topics: int  # pairs the LLM set labels on them
    pairs_per_topic: float  # of the LLM set's pool: what a whole topic costs, on average
    estimator: str  # the pilot's: as `studio estimate` makes them; no pilot: gold-only


def recommend_design(
    engine: EvaluationEngine,
    qrels: str,
    budget: int,
    *,
    pilot: str | None = None,
    measure: str = "nDCG@10",
    trials: int = 200,
    seed: int = 0,
) -> DesignRecommendation:
    """Each design's simulated coverage and width at `budget` pairs (topic designs: as many whole
    topics as cost that many pairs on average), and the recommended design with the reason."""
    if budget < 2:
        raise UsageError("--budget must be at least 2 pairs")
    basis = simulation_basis(engine, qrels, pilot)
    rows = [_simulated(engine, basis, design, budget, trials, measure, seed) for design in DESIGN_ORDER]
    chosen, reason = choose(rows)
    return DesignRecommendation(
        qrels=qrels,
        budget=budget,
        measure=measure,
        trials=trials,
        seed=seed,
        pilot=pilot,
        basis=_basis_in_words(basis),
        target_coverage=TARGET_COVERAGE,
        recommended=chosen,
        reason=reason,
        warnings=_sparse_pilot(basis),
        designs=rows,
    )


def simulation_basis(engine: EvaluationEngine, qrels: str, pilot: str | None) -> Basis:
    """The truth the designs are simulated against, and what a topic of the pool costs."""
    con = engine.db.cursor()
    pool = audit_store.pool(con, qrels)
    if not pool:
        raise UsageError(f"label set {qrels!r} labels no pair (see `studio list qrels`)")
    truth = pilot if pilot is not None else qrels
    truth_pool = audit_store.pool(con, truth)
    if len(truth_pool) < 2:
        raise UsageError(f"the pilot {truth!r} grades fewer than two pairs (see `studio list qrels`)")
    topics = {q for q, _, _ in truth_pool}
    return Basis(
        qrels=qrels,
        pilot=pilot,
        truth=truth,
        truth_pairs=len(truth_pool),
        topics=topics,
        pool_on_topics=sum(q in topics for q, _, _ in pool),
        pairs_per_topic=len(pool) / len({q for q, _, _ in pool}),
        estimator=ppi.DEFAULT_ESTIMATOR if pilot is not None else "gold",
    )


def _basis_in_words(basis: Basis) -> str:
    if basis.pilot is not None:
        return (
            f"the pilot {basis.pilot} as the truth over its {len(basis.topics)} topics, "
            "estimates as `studio estimate` makes them"
        )
    return (
        f"{basis.qrels}'s own labels as the truth and gold-only intervals (no pilot: the recommendation "
        "rests on the LLM's labels and says how each design copes with their spread, not how good the judge is)"
    )


def _sparse_pilot(basis: Basis) -> list[str]:
    """A warning when the pilot grades too little of the pool on its topics to be a truth."""
    on_topics = basis.pool_on_topics
    if basis.pilot is None or not on_topics or basis.truth_pairs >= SPARSE_PILOT * on_topics:
        return []
    return [
        f"the pilot {basis.pilot} grades {basis.truth_pairs} of the {on_topics} pairs {basis.qrels} labels on its "
        "topics: the simulation counts every pair it lacks as not relevant, so the coverages describe that truth, "
        "not the collection's; a pilot of whole topics (every pair of the pool graded) gives one worth simulating"
    ]


def _simulated(
    engine: EvaluationEngine, basis: Basis, design: str, budget: int, trials: int, measure: str, seed: int
) -> SimulatedDesign:
    """One design simulated at `budget` pairs (a topic design: the whole topics that cost as many)."""
    topic_design = design.startswith("topics")
    units = round(budget / basis.pairs_per_topic) if topic_design else budget
    cost = round(units * basis.pairs_per_topic) if topic_design else units
    row = SimulatedDesign(design=design, units=units, pairs=cost, coverage=None, width=None, note=None)
    if topic_design and not 2 <= units <= len(basis.topics):
        row["note"] = f"{units} topics: the truth has {len(basis.topics)}, and an interval needs 2"
        return row
    try:
        spec = AuditSimulationSpec(
            basis.truth,
            basis.qrels,
            budget=units,
            design=design,
            trials=trials,
            measure=measure,
            seed=seed,
            estimator=basis.estimator,
            pilot=None if basis.truth == basis.qrels else basis.truth,
        )
        found = simulate(engine, spec, ref_topics_only=True, beside_uniform=False)
    except UsageError as refused:  # e.g. no label distributions and no pilot, or a measure pairs cannot estimate
        row["note"] = str(refused)
        return row
    row["units"] = found["budget"]
    row["coverage"] = found["coverage"]
    row["width"] = found["width"]
    row["note"] = found.get("draws")
    return row


@dataclass(frozen=True)
class _Simulated:
    """A design that could be simulated: its figures, both known."""

    design: str
    units: int
    coverage: float
    width: float


def _simulated_only(rows: list[SimulatedDesign]) -> list[_Simulated]:
    """The designs the simulation ran, their coverage and width known."""
    return [
        _Simulated(r["design"], r["units"], coverage, width)
        for r in rows
        if (coverage := r["coverage"]) is not None and (width := r["width"]) is not None
    ]


def choose(rows: list[SimulatedDesign]) -> tuple[str | None, str]:
    """The narrowest design whose coverage reaches TARGET_COVERAGE, else the best-covering one; and why."""
    ran = _simulated_only(rows)
    if not ran:
        return None, "no design could be simulated at this budget"
    good = [r for r in ran if r.coverage >= TARGET_COVERAGE]
    best = min(good, key=lambda r: r.width) if good else max(ran, key=lambda r: r.coverage)
    topic = next((r for r in ran if r.design == "topics"), None)
    said = f"{best.design} covers {best.coverage:.3f} at width {best.width:.3f}"
    if not good:
        return best.design, f"no design reaches {TARGET_COVERAGE:g}; {said}, the best of them"
    if topic is not None and topic.coverage < TARGET_COVERAGE and best.design != "topics":
        return best.design, (
            f"the topic design covers {topic.coverage:.3f} with {topic.units} topics, below {TARGET_COVERAGE:g}: "
            "the per-topic differences are heavy-tailed, and a uniform topic sample misses the few far-off topics; "
            f"{said}"
        )
    return best.design, f"{said}, the narrowest of the designs that reach {TARGET_COVERAGE:g}"
