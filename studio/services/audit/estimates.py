"""`studio estimate`: each run's measure under full human judging, estimated from an LLM label
set and a partial gold audit, with intervals; the run pairs whose order the audit settles."""

from __future__ import annotations

import numpy as np

from studio.domain.errors import UsageError
from studio.domain.rows import Estimate, EstimateRun, RunPairEstimate
from studio.metrics import correlation as corr
from studio.metrics import ppi
from studio.services.audit.units import (
    GoldDesign,
    Units,
    gold_design,
    pair_units,
    topic_units,
)
from studio.services.evaluation.engine import EvaluationEngine, measure_of


def covers(design: str, level: float, qrels: str, gold: str, measure: str) -> str:
    """What the interval covers, in one sentence."""
    units = (
        "every topic " + qrels + " labels"
        if design == "topics"
        else "every (topic, document) pair " + qrels + " labels"
    )
    return (
        f"With probability {level:.0%} over the draw of the gold sample, each interval holds the run's "
        f"mean {measure} that {gold}'s judges would give if they judged {units} (these topics and "
        f"pools, not a wider population of topics)."
    )


def units_for(engine: EvaluationEngine, qrels: str, gold: str, measure: str, design: GoldDesign) -> Units:
    m = measure_of(measure)
    if design.design == "pairs":
        return pair_units(engine, qrels, gold, m)
    return topic_units(engine, qrels, gold, m)


def estimate(
    engine: EvaluationEngine,
    qrels: str,
    gold: str,
    measure: str = "nDCG@10",
    *,
    design: str = "topics",
    level: float = 0.95,
    tuned: bool = False,
) -> Estimate:
    """Estimated leaderboard with intervals beside the LLM-only values and the gold-only intervals."""
    if not 0 < level < 1:
        raise UsageError(f"--level must lie between 0 and 1, not {level}")
    found = gold_design(engine, gold, design)
    units = units_for(engine, qrels, gold, measure, found)
    n, total = int(units.sampled.sum()), len(units.keys)
    if n < 2:
        raise UsageError(f"{gold} grades {n} of the {total} {design} of {qrels}: an interval needs at least 2")
    pi = units.probabilities(found.probabilities)
    mask = units.sampled[None, :]
    ppi_runs = ppi.estimate_totals(mask, units.a, units.b, pi, level=level, tuned=tuned)
    gold_runs = ppi.estimate_totals(mask, units.a, None, pi, level=level)
    llm = units.b.sum(axis=0)
    est = ppi_runs.estimate[0]
    rows: list[EstimateRun] = []
    for r, run in enumerate(units.runs):
        rows.append(
            {
                "run": run,
                "estimate": _num(est[r]),
                "low": _num(ppi_runs.low[0, r]),
                "high": _num(ppi_runs.high[0, r]),
                "llm": _num(llm[r]),
                "gold": _num(gold_runs.estimate[0, r]),
                "gold_low": _num(gold_runs.low[0, r]),
                "gold_high": _num(gold_runs.high[0, r]),
                "lambda": _num(ppi_runs.lam[0, r]),
            }
        )
    rows.sort(key=_by_estimate)
    within_range(rows)
    tau = corr.kendall_tau_b(est, llm) if len(units.runs) > 1 else float("nan")
    m = str(measure_of(measure))
    return Estimate(
        advice=advice(rows, qrels),
        qrels=qrels,
        gold=gold,
        measure=m,
        design=design,
        level=level,
        power_tuning=tuned,
        units=total,
        gold_units=n,
        covers=covers(design, level, qrels, gold, m),
        runs=rows,
        pairs=run_pairs(units, pi, level=level, tuned=tuned),
        kendall_tau_vs_llm=_num(tau),
    )


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


def advice(rows: list[EstimateRun], qrels: str) -> str | None:
    """A word when the LLM labels make the intervals wider than the gold sample's alone (their
    per-topic errors vary more than the people's scores do): then the gold-only ones are better."""
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
    return (
        f"{qrels}'s labels widen the intervals here (mean width {ppi_width:.3f} against {gold_width:.3f} "
        "from the gold sample alone): their errors vary more than people's scores; use the gold-only "
        "intervals, try --power-tuning with a larger sample, or audit a better judge."
    )


def run_pairs(units: Units, pi: np.ndarray, *, level: float, tuned: bool) -> list[RunPairEstimate]:
    """Every pair of runs, the higher estimate first: the difference, its interval, settled when
    the interval excludes 0."""
    if len(units.runs) < 2:
        return []
    i, j = ppi.column_pairs(len(units.runs))
    found = ppi.estimate_totals(
        units.sampled[None, :],
        ppi.differences(units.a, i, j),
        ppi.differences(units.b, i, j),
        pi,
        level=level,
        tuned=tuned,
    )
    rows: list[RunPairEstimate] = []
    for c, (first, second) in enumerate(zip(i.tolist(), j.tolist(), strict=True)):
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


def _by_estimate(row: EstimateRun) -> float:
    value = row["estimate"]
    return -float(value) if value is not None else np.inf


def _num(value: float) -> float | None:
    """JSON has no NaN: an undefined figure is null."""
    return None if value is None or not np.isfinite(value) else float(value)
