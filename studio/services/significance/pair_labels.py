"""`studio significance --pair A B`: one run pair's decision under both label sets, and the
audited labels it hangs on (`decision_labels`), the most deciding first."""

from __future__ import annotations

from studio.domain.errors import UsageError
from studio.domain.pair_decisions import PairDecision, PairLabels
from studio.domain.significance import DEFAULT_PLAN, SignificancePlan, SignificantPair
from studio.services.evaluation.engine import EvaluationEngine
from studio.services.significance import labels, pairs


def pair_labels(
    engine: EvaluationEngine,
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
    """The pair tested among every pair of `runs` (all runs by default), so that its adjusted
    p-value is the one `studio significance` prints; then the labels behind it."""
    if limit is not None and limit < 1:
        raise UsageError(f"--limit must be at least 1, not {limit}")
    behind = labels.decision_labels(engine, ref, qrels, run_a, run_b, measure)  # checks the two names
    if runs is not None and not {run_a, run_b} <= set(runs):
        raise UsageError(f"--runs leaves out {run_a if run_a not in runs else run_b!r} of the pair")
    tested = pairs.significance(engine, qrels, measure, plan, runs=runs, ref=ref)
    row = next(p for p in tested["pairs"] if {p["run_a"], p["run_b"]} == {run_a, run_b})
    # Rows put the run ahead under the audited set first; the pair as named may be the other way round.
    sign = 1.0 if row["run_a"] == run_a else -1.0
    return PairLabels(
        ref=ref,
        qrels=qrels,
        measure=tested["measure"],
        run_a=run_a,
        run_b=run_b,
        test=plan.test,
        correction=plan.correction,
        alpha=plan.alpha,
        topics=row["topics"],
        decision=row.get("decision", "neither"),
        qrels_decision=_decision(sign, row["delta"], row["p_value"], row["p_adjusted"], row["significant"]),
        ref_decision=_ref_decision(sign, row),
        labels_total=len(behind["labels"]),
        labels=behind["labels"][:limit],
    )


def _ref_decision(sign: float, row: SignificantPair) -> PairDecision:
    return _decision(
        sign,
        row.get("ref_delta"),
        row.get("ref_p_value"),
        row.get("ref_p_adjusted"),
        row.get("ref_significant", False),
    )


def _decision(
    sign: float, delta: float | None, p_value: float | None, p_adjusted: float | None, significant: bool
) -> PairDecision:
    return PairDecision(
        delta=None if delta is None else sign * delta,
        p_value=p_value,
        p_adjusted=p_adjusted,
        significant=significant,
    )
