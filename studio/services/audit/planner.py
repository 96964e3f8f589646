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

import numpy as np

from studio.domain.audit_designs import BudgetPlan, DesignSize, StratumAllocation
from studio.domain.errors import UsageError
from studio.metrics.sampling import allocate, neyman_weights, simple_sample_size, stratified_sample_size
from studio.services.audit import adaptive
from studio.services.audit.adaptive_sizes import neyman_topic_size, uncertainty_pair_size
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
    pairs = pool_pairs(con, qrels, strata)
    _, differences = pilot_differences(con, qrels, pilot)
    if len(differences) < 2:
        raise UsageError(f"the pilot {pilot!r} grades fewer than two pairs of {qrels!r}'s pool")
    rectifiers = topic_rectifiers(engine, qrels, pilot, measure)
    topic_sd, pilot_topics = topic_rectifier_sd(rectifiers), len(rectifiers)
    neyman_topics, neyman_rows = neyman_topic_size(con, qrels, pilot, rectifiers, width)
    uncertain, effect, signal = uncertainty_pair_size(con, qrels, pilot, pairs, differences, width)
    topics = len({p.qid for p in pairs})
    pair_sd = float(np.std(list(differences.values()), ddof=1))
    names = sorted({p.stratum for p in pairs if p.stratum is not None})
    sizes = [sum(p.stratum == h for p in pairs) for h in names]
    spreads = [s if s is not None else pair_sd for s in stratum_spreads(pairs, differences, names)]
    stratified = stratified_sample_size(sizes, spreads, width)
    counts = allocate(sizes, neyman_weights(sizes, spreads), stratified)
    proportional = allocate(sizes, [float(n) for n in sizes], stratified)
    in_pilot = {h: sum((p.qid, p.docid) in differences for p in pairs if p.stratum == h) for h in names}
    topics_needed = None if math.isnan(topic_sd) else simple_sample_size(topic_sd, width, topics)
    pairs_needed = simple_sample_size(pair_sd, width, len(pairs))
    seconds, seconds_from = seconds_per_decision(con)

    def in_pairs(needed_topics: int | None) -> int | None:
        """A topic is graded whole: it costs its share of the pool's pairs, on average."""
        return None if needed_topics is None else round(needed_topics * len(pairs) / topics)

    def hours(needed_pairs: int | None) -> float | None:
        return None if needed_pairs is None else assessor_hours(needed_pairs, seconds)

    designs = [
        DesignSize(
            design="topics",
            unit="topic",
            population=topics,
            pilot_units=pilot_topics,
            sd=None if math.isnan(topic_sd) else topic_sd,
            needed=topics_needed,
            needed_pairs=in_pairs(topics_needed),
            quantity=f"each run's mean {measure}",
            assessor_hours=hours(in_pairs(topics_needed)),
        ),
        DesignSize(
            design="pairs",
            unit="pair",
            population=len(pairs),
            pilot_units=len(differences),
            sd=pair_sd,
            needed=pairs_needed,
            needed_pairs=pairs_needed,
            quantity="mean gold − LLM grade",
            assessor_hours=hours(pairs_needed),
        ),
        DesignSize(
            design=f"stratified ({strata})",
            unit="pair",
            population=len(pairs),
            pilot_units=len(differences),
            sd=None,
            needed=stratified,
            needed_pairs=stratified,
            quantity="mean gold − LLM grade",
            assessor_hours=hours(stratified),
        ),
        DesignSize(
            design=adaptive.TOPICS_NEYMAN,
            unit="topic",
            population=topics,
            pilot_units=pilot_topics,
            sd=None,
            needed=neyman_topics,
            needed_pairs=in_pairs(neyman_topics),
            quantity=f"each run's mean {measure}",
            assessor_hours=hours(in_pairs(neyman_topics)),
        ),
        DesignSize(
            design=adaptive.PAIRS_UNCERTAINTY,
            unit="pair",
            population=len(pairs),
            pilot_units=len(differences),
            sd=pair_sd * math.sqrt(effect),
            needed=uncertain,
            needed_pairs=uncertain,
            quantity=f"mean gold − LLM grade, design effect {effect:.2f}",
            assessor_hours=hours(uncertain),
        ),
    ]
    rows = [
        StratumAllocation(
            stratum=h,
            pairs=n,
            pilot_pairs=in_pilot[h],
            sd=s,
            neyman=c,
            proportional=p,
            sample="more" if c > p else "fewer" if c < p else "same",
        )
        for h, n, s, c, p in zip(names, sizes, spreads, counts, proportional, strict=True)
    ]
    return BudgetPlan(
        qrels=qrels,
        pilot=pilot,
        target_width=width,
        measure=measure,
        confidence=0.95,
        designs=designs,
        strata_by=strata,
        strata=rows,
        topic_strata=neyman_rows,
        uncertainty_from=signal,
        seconds_per_decision=seconds,
        seconds_from=seconds_from,
    )
