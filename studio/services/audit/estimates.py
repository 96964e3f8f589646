"""`studio estimate`: each run's measure under full human judging, estimated from an LLM label
set and a partial gold audit, with intervals; the run pairs whose order the audit settles."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from studio.domain.errors import UsageError
from studio.domain.rows import Estimate, EstimateRun, RunPairEstimate
from studio.domain.specs import EstimateSpec
from studio.metrics import correlation as corr
from studio.metrics import ppi, ppi_ratio
from studio.metrics.names import Measure
from studio.services.audit.levels import at_level
from studio.services.audit.pairs import UNLABELLED, pool_pairs, precision_units
from studio.services.audit.units import GoldDesign, Units, gold_design, stratified, topic_units
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.services.meta.unreachable_levels import side_warnings
from studio.store import audits as audit_store


def covers(design: str, level: float, qrels: str, gold: str, measure: str, lacking: int = 0) -> str:
    """What the interval covers, in one sentence: over which population the truth is defined."""
    kind = "topic" if design == "topics" else "(topic, document) pair"
    units = f"every {kind} {qrels} or {gold} labels"
    if lacking:
        units += f" ({lacking} of them only {gold}'s, counted as they were graded: {qrels} predicts nothing there)"
    return (
        f"With probability {level:.0%} over the draw of the gold sample, each interval holds the run's "
        f"mean {measure} that {gold}'s judges would give if they judged {units} (these topics and "
        f"pools, not a wider population of topics)."
    )


@dataclass(frozen=True)
class Linear:
    """Units whose contributions may be shifted by a constant (a linearised measure): θ ≈ c + Σ a."""

    units: Units
    constant: np.ndarray  # (runs,)
    gold_units: Units  # the contributions the gold-only estimate linearises (equal to `units` when linear)
    gold_constant: np.ndarray
    llm_value: np.ndarray  # (runs,) the LLM-only value
    pseudo: str = ppi.PSEUDO_TOPIC  # the pseudo-unit of ppi.estimate_totals: a topic's, or a pair's


def linear_units(
    engine: EvaluationEngine, qrels: str, gold: str, m: Measure, llm_m: Measure, design: GoldDesign
) -> Linear:
    """The estimate's units for the design and measure (nDCG over pairs linearised)."""
    if design.design == "topics":
        units = stratified(topic_units(engine, qrels, gold, m, llm_measure=llm_m), design)
        zero = np.zeros(len(units.runs))
        return Linear(units, zero, units, zero, units.b.sum(axis=0))
    pairs = pool_pairs(engine, qrels, gold, m)
    # Pairs only the gold side has are known in full (they are all the pool holds of them): a census stratum.
    sampled = pairs.sampled
    if m.name == "P":
        a, b = precision_units(pairs, m.rel, llm_m.rel)
        units = Units(pairs.keys, a, b, sampled, pairs.runs, pairs.strata)
        zero = np.zeros(len(pairs.runs))
        return Linear(units, zero, units, zero, b.sum(axis=0), pseudo=ppi.PSEUDO_PAIR)
    bare = Units(
        pairs.keys, np.zeros((len(pairs.keys), 0)), np.zeros((len(pairs.keys), 0)), sampled, pairs.runs, pairs.strata
    )
    pi = bare.probabilities(design.probabilities)
    with_llm = ppi_ratio.linearise(sampled, pairs.pool, pairs.gold, pairs.llm, pi)
    alone = ppi_ratio.linearise(sampled, pairs.pool, pairs.gold, pairs.llm, pi, gold_only=True)
    assert with_llm.b is not None
    llm_value = ppi_ratio.true_ndcg(pairs.pool, np.where(pairs.strata == UNLABELLED, 0.0, pairs.llm))
    return Linear(
        Units(pairs.keys, with_llm.a, with_llm.b, sampled, pairs.runs, pairs.strata),
        with_llm.constant,
        Units(pairs.keys, alone.a, np.zeros_like(alone.a), sampled, pairs.runs, pairs.strata),
        alone.constant,
        llm_value,
        pseudo=ppi.PSEUDO_PAIR,
    )


def estimate(engine: EvaluationEngine, spec: EstimateSpec) -> Estimate:
    """Estimated leaderboard with intervals beside the LLM-only values and the gold-only intervals.
    `spec.estimator`: one of ppi.ESTIMATORS (None: cross-fit); `spec.llm_relevant`: the LLM label
    set's own relevance level for binary measures (None: the measure's)."""
    qrels, gold, design, level = spec.qrels, spec.gold, spec.design, spec.level
    kind = estimator_kind(level, spec.estimator)
    m = measure_of(spec.measure)
    llm_m = at_level(m, spec.llm_relevant)
    found = gold_design(engine, gold, design)
    linear = linear_units(engine, qrels, gold, m, llm_m, found)
    units = linear.units
    n, total = int(units.sampled.sum()), len(units.keys)
    if n < 2:
        raise UsageError(f"{gold} grades {n} of the {total} {design} of {qrels}: an interval needs at least 2")
    fitted = run_intervals(linear, found, level=level, estimator=kind)
    rows = run_rows(fitted)
    tau = corr.kendall_tau_b(fitted.rectified.estimate[0], linear.llm_value) if len(units.runs) > 1 else float("nan")
    lacking = int((units.strata == UNLABELLED).sum()) if units.strata is not None else 0
    result: Estimate = {
        "advice": advice(rows, qrels, kind),
        "qrels": qrels,
        "gold": gold,
        "measure": str(m),
        "llm_measure": str(llm_m),
        "design": design,
        "level": level,
        "estimator": kind,
        "power_tuning": kind in ("cross-fit", "ppi++"),
        "lambda": _num(float(fitted.rectified.lam[0, 0])) if len(units.runs) else None,
        "units": total,
        "units_qrels_lacks": lacking,
        "gold_units": n,
        "covers": covers(design, level, qrels, gold, str(m), lacking),
        "warnings": side_warnings(engine, gold, qrels, m, llm_m) + drift_warnings(engine, gold),
        "runs": rows,
        "pairs": run_pairs(linear, fitted.pi, level=level, estimator=kind),
        "kendall_tau_vs_llm": _num(tau),
    }
    return result


def estimator_kind(level: float, estimator: str | None) -> str:
    """The estimator to use, one of ppi.ESTIMATORS; a usage error for a level or name it cannot take."""
    if not 0 < level < 1:
        raise UsageError(f"--level must lie between 0 and 1, not {level}")
    return chosen_estimator(estimator)


def chosen_estimator(estimator: str | None) -> str:
    """`estimator`, or the default; a usage error for a name ppi does not know."""
    kind = estimator or ppi.DEFAULT_ESTIMATOR
    if kind not in ppi.ESTIMATORS:
        raise UsageError(f"unknown estimator {kind!r} (known: {', '.join(ppi.ESTIMATORS)})")
    return kind


@dataclass(frozen=True)
class RunIntervals:
    """Every run's interval from one gold sample, with the estimator and with the gold units alone."""

    linear: Linear  # the units the intervals are totals over
    pi: np.ndarray  # (units,) each unit's inclusion probability under the audit's design
    rectified: ppi.Intervals  # the chosen estimator's, shifted by the linearisation's constant
    gold_only: ppi.Intervals  # the gold sample's alone, the width the LLM labels must beat


def run_intervals(linear: Linear, found: GoldDesign, *, level: float, estimator: str) -> RunIntervals:
    """Each run's interval under `estimator`, and under the gold sample alone."""
    units = linear.units
    pi = units.probabilities(found.probabilities)
    mask = units.sampled[None, :]
    b = None if estimator == "gold" else units.b
    rectified = ppi_ratio.shifted(
        ppi.estimate_totals(
            mask, units.a, b, pi, level=level, estimator=estimator, strata=units.strata, pseudo=linear.pseudo
        ),
        linear.constant,
    )
    gold_only = ppi_ratio.shifted(
        ppi.estimate_totals(mask, linear.gold_units.a, None, pi, level=level, strata=units.strata),
        linear.gold_constant,
    )
    return RunIntervals(linear, pi, rectified, gold_only)


def run_rows(fitted: RunIntervals) -> list[EstimateRun]:
    """One row per run, the highest estimate first, clipped to the measure's range."""
    est, gold_runs, llm = fitted.rectified, fitted.gold_only, fitted.linear.llm_value
    rows: list[EstimateRun] = []
    for r, run in enumerate(fitted.linear.units.runs):
        rows.append(
            {
                "run": run,
                "estimate": _num(est.estimate[0, r]),
                "low": _num(est.low[0, r]),
                "high": _num(est.high[0, r]),
                "llm": _num(llm[r]),
                "gold": _num(gold_runs.estimate[0, r]),
                "gold_low": _num(gold_runs.low[0, r]),
                "gold_high": _num(gold_runs.high[0, r]),
                "lambda": _num(est.lam[0, r]),
            }
        )
    rows.sort(key=_by_estimate)
    within_range(rows)
    return rows


def drift_warnings(engine: EvaluationEngine, gold: str) -> list[str]:
    """A word when the audited set changed after the audit was drawn: the sample's inclusion
    probabilities (and strata) are those of the labels it held then."""
    record = audit_store.audit(engine.db.cursor(), gold)
    changed = audit_store.audited_set_changes(engine.db.cursor(), gold) if record is not None else 0
    if record is None or not changed:
        return []
    return [
        f"{record['label_set']} took {changed} label change(s) after audit {gold} was drawn ({record['created']}):"
        " the sample's inclusion probabilities are those of its labels then; plan a new audit for the labels now"
    ]


MEASURE_RANGE = (0.0, 1.0)  # every measure the studio computes is a mean of per-topic values in [0, 1]


def within_range(rows: list[EstimateRun]) -> None:
    """Clip estimates and intervals to the measure's range: the rectified estimate can leave it
    (an LLM far off), and the true value cannot, so the clipped interval covers it as often."""
    for row in rows:
        row["estimate"], row["low"], row["high"] = _clip(row["estimate"]), _clip(row["low"]), _clip(row["high"])
        row["gold"], row["gold_low"], row["gold_high"] = (
            _clip(row["gold"]),
            _clip(row["gold_low"]),
            _clip(row["gold_high"]),
        )


def _clip(value: float | None) -> float | None:
    low_end, high_end = MEASURE_RANGE
    return None if value is None else min(max(value, low_end), high_end)


def advice(rows: list[EstimateRun], qrels: str, estimator: str = "ppi") -> str | None:
    """A word when the LLM labels make the intervals wider than the gold sample's alone (their
    per-topic errors vary more than the people's scores do): then the gold-only ones are better.
    The default estimator is suggested only when it is not the one that was used."""
    widths = []
    for r in rows:
        low, high, gold_low, gold_high = r["low"], r["high"], r["gold_low"], r["gold_high"]
        if low is not None and high is not None and gold_low is not None and gold_high is not None:
            widths.append((high - low, gold_high - gold_low))
    if not widths:
        return None
    ppi_width = sum(w for w, _ in widths) / len(widths)
    gold_width = sum(g for _, g in widths) / len(widths)
    if ppi_width <= gold_width:
        return None
    other = "" if estimator == ppi.DEFAULT_ESTIMATOR else f", the default {ppi.DEFAULT_ESTIMATOR} estimator,"
    return (
        f"{qrels}'s labels widen the intervals here (mean width {ppi_width:.3f} against {gold_width:.3f} "
        "from the gold sample alone): their errors vary more than people's scores; use the gold-only "
        f"intervals (--estimator gold){other} or audit a better judge."
    )


def run_pairs(linear: Linear, pi: np.ndarray, *, level: float, estimator: str) -> list[RunPairEstimate]:
    """Every pair of runs, the higher estimate first: the difference, its interval, settled when
    the interval excludes 0."""
    units = linear.units
    if len(units.runs) < 2:
        return []
    paired = pair_intervals(linear, pi, level=level, estimator=estimator)
    found = paired.intervals
    rows: list[RunPairEstimate] = []
    for c, (first, second) in enumerate(zip(paired.first.tolist(), paired.second.tolist(), strict=True)):
        diff, low, high = found.estimate[0, c], found.low[0, c], found.high[0, c]
        if diff < 0:  # the run estimated higher goes first
            first, second, diff, low, high = second, first, -diff, -high, -low
        rows.append(
            RunPairEstimate(
                run_a=units.runs[first],
                run_b=units.runs[second],
                difference=_num(diff),
                low=_num(low),
                high=_num(high),
                settled=bool(low > 0 or high < 0),
            )
        )
    rows.sort(key=lambda row: -(row["difference"] or 0.0))
    return rows


@dataclass(frozen=True)
class PairIntervals:
    """The interval of each run pair's difference, column c the pair (first[c], second[c])."""

    first: np.ndarray  # (pairs,) run index of the minuend
    second: np.ndarray  # (pairs,) run index of the subtrahend
    intervals: ppi.Intervals  # (1 × pairs) estimate, interval, se and df of runs[first] − runs[second]


def pair_intervals(linear: Linear, pi: np.ndarray, *, level: float, estimator: str) -> PairIntervals:
    """Every run pair's difference estimated on the same units, estimator and design as the runs."""
    units = linear.units
    i, j = ppi.column_pairs(len(units.runs))
    found = ppi_ratio.shifted(
        ppi.estimate_totals(
            units.sampled[None, :],
            ppi.differences(units.a, i, j),
            None if estimator == "gold" else ppi.differences(units.b, i, j),
            pi,
            level=level,
            estimator=estimator,
            strata=units.strata,
            pseudo=linear.pseudo,
        ),
        linear.constant[i] - linear.constant[j],
    )
    return PairIntervals(i, j, found)


def _by_estimate(row: EstimateRun) -> float:
    value = row["estimate"]
    return -float(value) if value is not None else np.inf


def _num(value: float) -> float | None:
    """JSON has no NaN: an undefined figure is null."""
    return None if value is None or not np.isfinite(value) else float(value)
