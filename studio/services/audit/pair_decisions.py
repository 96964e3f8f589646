"""`studio estimate --decisions`: which run-pair decisions a partial audit already supports.

Each run pair's estimated difference from the audit (`estimates.run_pairs`' quantities: the same
units, estimator, λ and design variance) gets a two-sided p-value against the very t distribution
its interval uses, so that p < 1 − level exactly when the pair is settled; the p-values are then
corrected for the number of pairs as `studio significance` corrects them. With the full reference
label set, each significant pair is checked against the decision `studio significance` makes
under the reference (a paired t-test, the same correction and α): `supported` when the reference
finds it significant too, the same run ahead.
"""

from __future__ import annotations

import math

import numpy as np

from studio.domain.errors import UsageError
from studio.domain.frames import TopicChoice, sorted_topics
from studio.domain.pair_decisions import AuditDecisions, AuditPairDecision
from studio.domain.significance import CORRECTIONS, SignificancePlan, SignificantPair
from studio.domain.specs import DecisionTest, EstimateSpec
from studio.metrics import interval_tests
from studio.metrics import multiple_testing as mt
from studio.services.audit.estimates import PairIntervals, chosen_estimator, linear_units, pair_intervals
from studio.services.audit.levels import at_level
from studio.services.audit.units import gold_design
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.services.significance import pairs

REF_TEST = "t"  # the reference's decisions: `studio significance`'s default test
LEVEL = 0.95  # the differences' intervals are computed at some level; p-values do not depend on it


def audit_decisions(engine: EvaluationEngine, spec: EstimateSpec, test: DecisionTest) -> AuditDecisions:
    """Every run pair's decision from the estimate of `studio estimate` with the same spec,
    corrected over the pairs; with `test.ref`, compared with the reference's own decisions."""
    qrels, gold, design = spec.qrels, spec.gold, spec.design
    correction, alpha, ref = test.correction, test.alpha, test.ref
    if correction not in CORRECTIONS:
        raise UsageError(f"unknown correction {correction!r} ({', '.join(CORRECTIONS)})")
    if not 0 < alpha < 1:
        raise UsageError(f"--alpha must lie between 0 and 1, not {alpha}")
    kind = chosen_estimator(spec.estimator)
    m = measure_of(spec.measure)
    found = gold_design(engine, gold, design)
    linear = linear_units(engine, qrels, gold, m, at_level(m, spec.llm_relevant), found)
    units = linear.units
    if int(units.sampled.sum()) < 2:
        raise UsageError(f"{gold} grades fewer than 2 of the {design} of {qrels}: a decision needs at least 2")
    result = AuditDecisions(correction=correction, alpha=alpha, significant=0, pairs=[])
    if len(units.runs) < 2:
        return result
    # The differences' intervals of `studio estimate`; their level moves no p-value.
    paired = pair_intervals(linear, units.probabilities(found.probabilities), level=LEVEL, estimator=kind)
    result["pairs"] = decision_rows(units.runs, paired, correction, alpha)
    result["significant"] = sum(row["significant"] for row in result["pairs"])
    if ref is not None:
        _compare(result, engine, qrels, ref, str(m))
    return result


def decision_rows(runs: list[str], paired: PairIntervals, correction: str, alpha: float) -> list[AuditPairDecision]:
    """Each run pair's p-value, corrected over the pairs, the run estimated higher first; the
    smallest p-value first."""
    intervals = paired.intervals
    assert intervals.df is not None
    difference, se = intervals.estimate[0], intervals.se[0]
    p = interval_tests.two_sided_p(difference, se, intervals.df[0])
    adjusted = mt.adjust(p, correction)
    significant = mt.rejected(p, correction, alpha)
    rows: list[AuditPairDecision] = []
    for c, (first, second) in enumerate(zip(paired.first.tolist(), paired.second.tolist(), strict=True)):
        sign = -1.0 if difference[c] < 0 else 1.0  # the run estimated higher goes first
        a, b = (first, second) if sign > 0 else (second, first)
        rows.append(
            AuditPairDecision(
                run_a=runs[a],
                run_b=runs[b],
                difference=_num(sign * difference[c]),
                se=_num(se[c]),
                df=_num(intervals.df[0]),
                p_value=_num(p[c]),
                p_adjusted=_num(adjusted[c]),
                significant=bool(significant[c]),
            )
        )
    rows.sort(key=lambda r: (_or_inf(r["p_value"]), -(r["difference"] or 0.0), r["run_a"], r["run_b"]))
    return rows


def _compare(result: AuditDecisions, engine: EvaluationEngine, audited: str, ref: str, measure: str) -> None:
    """Each pair's decision under the full reference, and whether it supports the audit's."""
    plan = SignificancePlan(REF_TEST, result["correction"], result["alpha"])
    # The reference decides on the topics it shares with the audited label set (the comparison frame
    # of two label sets), not on topics the estimate never reaches.
    common = engine.evaluator(ref).labelled_topics() & engine.evaluator(audited).labelled_topics()
    under_ref = pairs.significance(engine, ref, measure, plan, topics=TopicChoice(subset=tuple(sorted_topics(common))))
    by_pair: dict[frozenset[str], SignificantPair] = {
        frozenset((p["run_a"], p["run_b"])): p for p in under_ref["pairs"]
    }
    for row in result["pairs"]:
        theirs = by_pair.get(frozenset((row["run_a"], row["run_b"])))
        if theirs is None:  # a run the reference's leaderboard lacks
            continue
        sign = 1.0 if theirs["run_a"] == row["run_a"] else -1.0
        ref_delta = None if theirs["delta"] is None else sign * theirs["delta"]
        row["ref_delta"] = ref_delta
        row["ref_p_adjusted"] = theirs["p_adjusted"]
        row["ref_significant"] = theirs["significant"]
        row["supported"] = bool(
            row["significant"] and theirs["significant"] and ref_delta is not None and ref_delta > 0
        )
    result["ref"] = ref
    result["ref_test"] = REF_TEST
    result["ref_significant"] = sum(p["significant"] for p in under_ref["pairs"])
    result["ref_topics"] = len(common)
    result["supported"] = sum(row.get("supported", False) for row in result["pairs"])


def _or_inf(value: float | None) -> float:
    return math.inf if value is None else value


def _num(value: float) -> float | None:
    """JSON has no NaN: an undefined figure is null."""
    return None if not np.isfinite(value) else float(value)
