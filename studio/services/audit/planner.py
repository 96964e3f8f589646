"""How big an audit sample must be for an interval of a given width, per design, from a pilot.

`topics-neyman` and `pairs-uncertainty` are sized in `adaptive_sizes.py`.

Topics: the quantity is a run's mean measure over topics, corrected by the sampled topics'
rectifier gold − LLM; its variance is S²/n·(1 − n/N) with S the per-topic rectifier's standard
deviation over the pilot's topics (the largest over runs, so that every run's interval is at most
that wide). Pairs and stratified pairs: the mean disagreement gold − LLM over the pool, with S
(or S_h per stratum, Neyman-allocated) from the pilot's pairs.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from studio.domain.audit_designs import BudgetPlan, DesignSize, StratumAllocation, TopicStratumSize
from studio.domain.errors import UsageError
from studio.metrics.sampling import allocate, neyman_weights, simple_sample_size, stratified_sample_size
from studio.services.audit import adaptive
from studio.services.audit.adaptive_sizes import neyman_topic_size, uncertainty_pair_size
from studio.services.audit.pool import PoolPair
from studio.services.audit.samples import STRATA, pilot_differences, pool_pairs, stratum_spreads
from studio.services.audit.timing import assessor_hours, seconds_per_decision
from studio.services.evaluation.engine import EvaluationEngine, measure_of


def topic_rectifiers(engine: EvaluationEngine, qrels: str, pilot: str, measure: str) -> dict[str, np.ndarray]:
    """Each pilot topic's gold − LLM value of every run."""
    m = measure_of(measure)
    gold, llm = engine.evaluator(pilot), engine.evaluator(qrels)
    gold_values, llm_values = gold.per_topic(m), llm.per_topic(m)
    labelled = [q for q in gold.qids if gold.labels.get(q) and gold.labels[q].judged]
    topics = llm.knows(labelled)
    unlabelled = np.full(len(llm.runs), np.nan)  # a ranked topic the LLM set does not label
    return {
        q: gold_values[gold.row[q]] - (llm_values[llm.row[q]] if q in llm.row else unlabelled)
        for q in labelled
        if q in topics
    }


def topic_rectifier_sd(rectifiers: dict[str, np.ndarray]) -> float:
    """The largest (over runs) standard deviation of gold − LLM per topic over the pilot's topics."""
    if len(rectifiers) < 2:
        return math.nan
    with np.errstate(invalid="ignore"):
        spreads = np.nanstd(np.array(list(rectifiers.values())), axis=0, ddof=1)
    spreads = spreads[np.isfinite(spreads)]
    return float(spreads.max()) if spreads.size else math.nan


class PilotSpreads(NamedTuple):
    """What the pilot says of the pool's spreads: per pair, per topic, per stratum."""

    pairs: list[PoolPair]  # the LLM set's pool, each pair with its stratum
    differences: dict[tuple[str, str], float]  # gold − LLM on the pilot's pairs of the pool
    rectifiers: dict[str, np.ndarray]  # each pilot topic's gold − LLM value of every run
    topic_sd: float  # the largest over runs (NaN: the pilot grades fewer than two topics)
    pair_sd: float  # of gold − LLM over the pilot's pairs
    topics: int  # topics of the pool


class StratifiedSizes(NamedTuple):
    """The stratified design: its size for the width, and each stratum's Neyman and proportional share."""

    names: list[str]
    sizes: list[int]  # N_h
    spreads: list[float]  # S_h (the pilot's overall S where it grades fewer than two pairs of a stratum)
    needed: int
    neyman: list[int]
    proportional: list[int]
    in_pilot: dict[str, int]  # the pilot's pairs in each stratum


class AdaptiveSizes(NamedTuple):
    """The sizes of the designs whose π an LLM-only signal sets."""

    neyman_topics: int | None
    topic_strata: list[TopicStratumSize]
    uncertain_pairs: int
    design_effect: float
    signal: str  # where `pairs-uncertainty`'s predicted errors come from


def budget_plan(
    engine: EvaluationEngine, qrels: str, pilot: str, width: float, *, measure: str = "nDCG@10", strata: str = "grade"
) -> BudgetPlan:
    """The sample each design needs for a 95% interval `width` wide, in units, pairs and
    assessor-hours, and the Neyman allocation over strata."""
    if not width > 0:  # NaN too
        raise UsageError("--target-width must be a positive number")
    if strata not in STRATA:
        raise UsageError(f"--strata: choose one of {', '.join(STRATA)}")
    con = engine.db.cursor()
    spreads = pilot_spreads(engine, qrels, pilot, measure, strata)
    neyman_topics, neyman_rows = neyman_topic_size(con, qrels, pilot, spreads.rectifiers, width)
    uncertain, effect, signal = uncertainty_pair_size(con, qrels, pilot, spreads.pairs, spreads.differences, width)
    adaptive_sizes = AdaptiveSizes(neyman_topics, neyman_rows, uncertain, effect, signal)
    stratified = stratified_sizes(spreads, width)
    seconds, seconds_from = seconds_per_decision(con)
    return BudgetPlan(
        qrels=qrels,
        pilot=pilot,
        target_width=width,
        measure=measure,
        confidence=0.95,
        designs=design_sizes(spreads, stratified, adaptive_sizes, width, measure, strata, seconds),
        strata_by=strata,
        strata=stratum_allocations(stratified),
        topic_strata=neyman_rows,
        uncertainty_from=signal,
        seconds_per_decision=seconds,
        seconds_from=seconds_from,
    )


def pilot_spreads(engine: EvaluationEngine, qrels: str, pilot: str, measure: str, strata: str) -> PilotSpreads:
    """The pool (in `strata`) and the pilot's gold − LLM over its pairs and topics."""
    con = engine.db.cursor()
    pairs = pool_pairs(con, qrels, strata)
    _, differences = pilot_differences(con, qrels, pilot)
    if len(differences) < 2:
        raise UsageError(f"the pilot {pilot!r} grades fewer than two pairs of {qrels!r}'s pool")
    rectifiers = topic_rectifiers(engine, qrels, pilot, measure)
    pair_sd = float(np.std(list(differences.values()), ddof=1))
    topics = len({p.qid for p in pairs})
    return PilotSpreads(pairs, differences, rectifiers, topic_rectifier_sd(rectifiers), pair_sd, topics)


def stratified_sizes(spreads: PilotSpreads, width: float) -> StratifiedSizes:
    """The stratified design's size for `width`, allocated by Neyman and in proportion."""
    pairs, differences = spreads.pairs, spreads.differences
    names = sorted({p.stratum for p in pairs if p.stratum is not None})
    sizes = [sum(p.stratum == h for p in pairs) for h in names]
    per_stratum = [s if s is not None else spreads.pair_sd for s in stratum_spreads(pairs, differences, names)]
    needed = stratified_sample_size(sizes, per_stratum, width)
    neyman = allocate(sizes, neyman_weights(sizes, per_stratum), needed)
    proportional = allocate(sizes, [float(n) for n in sizes], needed)
    in_pilot = {h: sum((p.qid, p.docid) in differences for p in pairs if p.stratum == h) for h in names}
    return StratifiedSizes(names, sizes, per_stratum, needed, neyman, proportional, in_pilot)


def design_sizes(
    spreads: PilotSpreads,
    stratified: StratifiedSizes,
    adaptive_sizes: AdaptiveSizes,
    width: float,
    measure: str,
    strata: str,
    seconds: float,
) -> list[DesignSize]:
    """Each design's size in its units, in pairs and in assessor-hours."""
    population = len(spreads.pairs)
    topic_sd = None if math.isnan(spreads.topic_sd) else spreads.topic_sd
    topics_needed = None if topic_sd is None else simple_sample_size(topic_sd, width, spreads.topics)
    pairs_needed = simple_sample_size(spreads.pair_sd, width, population)
    mean_grade = "mean gold − LLM grade"

    def in_pairs(needed_topics: int | None) -> int | None:
        """A topic is graded whole: it costs its share of the pool's pairs, on average."""
        return None if needed_topics is None else round(needed_topics * population / spreads.topics)

    def size(design: str, unit: str, sd: float | None, needed: int | None, quantity: str) -> DesignSize:
        topic = unit == "topic"
        cost = in_pairs(needed) if topic else needed
        return DesignSize(
            design=design,
            unit=unit,
            population=spreads.topics if topic else population,
            pilot_units=len(spreads.rectifiers) if topic else len(spreads.differences),
            sd=sd,
            needed=needed,
            needed_pairs=cost,
            quantity=quantity,
            assessor_hours=None if cost is None else assessor_hours(cost, seconds),
        )

    effect = adaptive_sizes.design_effect
    return [
        size("topics", "topic", topic_sd, topics_needed, f"each run's mean {measure}"),
        size("pairs", "pair", spreads.pair_sd, pairs_needed, mean_grade),
        size(f"stratified ({strata})", "pair", None, stratified.needed, mean_grade),
        size(adaptive.TOPICS_NEYMAN, "topic", None, adaptive_sizes.neyman_topics, f"each run's mean {measure}"),
        size(
            adaptive.PAIRS_UNCERTAINTY,
            "pair",
            spreads.pair_sd * math.sqrt(effect),
            adaptive_sizes.uncertain_pairs,
            f"{mean_grade}, design effect {effect:.2f}",
        ),
    ]


def stratum_allocations(stratified: StratifiedSizes) -> list[StratumAllocation]:
    """Neyman's allocation beside the proportional one, stratum by stratum."""
    return [
        StratumAllocation(
            stratum=h,
            pairs=n,
            pilot_pairs=stratified.in_pilot[h],
            sd=s,
            neyman=c,
            proportional=p,
            sample="more" if c > p else "fewer" if c < p else "same",
        )
        for h, n, s, c, p in zip(
            stratified.names,
            stratified.sizes,
            stratified.spreads,
            stratified.neyman,
            stratified.proportional,
            strict=True,
        )
    ]
