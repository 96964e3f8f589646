"""`studio significance`: every pair of runs tested under a label set, p-values corrected for the
number of pairs; with a reference label set, both tested alike and their decisions compared."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from studio.domain.errors import UsageError
from studio.domain.frames import EVERY_TOPIC, TopicChoice
from studio.domain.significance import (
    CORRECTIONS,
    DEFAULT_PLAN,
    SIGNIFICANCE_TESTS,
    TOP_K,
    BestRun,
    DecisionAgreement,
    Significance,
    SignificancePlan,
    SignificantPair,
)
from studio.metrics import decisions
from studio.metrics import multiple_testing as mt
from studio.metrics import significance as sig
from studio.metrics.evaluator import Evaluator
from studio.metrics.names import Measure
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.services.meta.frame import check_subset, comparison_frame


def chosen_runs(evaluator: Evaluator, runs: list[str] | None) -> list[int]:
    """Column numbers of the runs asked for (all, in the project's order, when none are named)."""
    if not runs:
        return list(range(len(evaluator.runs)))
    index = {name: r for r, name in enumerate(evaluator.runs)}
    missing = [name for name in runs if name not in index]
    if missing:
        raise UsageError(f"no run named {', '.join(map(repr, missing))} (see `studio list runs`)")
    if len(set(runs)) != len(runs):
        raise UsageError("a run is named twice in --runs")
    return [index[name] for name in runs]


def run_values(
    evaluator: Evaluator, measure: Measure, columns: list[int], topics: tuple[str, ...] | None = None
) -> np.ndarray:
    """(runs × topics) per-topic values, NaN where the run skips the topic or it has no labels:
    a pair is then tested on the topics both runs have, as the leaderboard counts them (`topics`:
    only these topics, in trec_eval's order)."""
    matrix = evaluator.per_topic(measure)
    if topics is not None:
        matrix = matrix[np.sort(evaluator.rows_of(topics))]
    return np.ascontiguousarray(matrix[:, columns].T)


def _check(test: str, correction: str, alpha: float, resamples: int) -> None:
    if test not in SIGNIFICANCE_TESTS:
        raise UsageError(f"unknown test {test!r} ({', '.join(SIGNIFICANCE_TESTS)})")
    if correction not in CORRECTIONS:
        raise UsageError(f"unknown correction {correction!r} ({', '.join(CORRECTIONS)})")
    if test == "tukey" and correction != "none":
        raise UsageError("Tukey's HSD already controls the error over all pairs: use --correction none")
    if not 0 < alpha < 1:
        raise UsageError(f"--alpha must lie between 0 and 1, not {alpha}")
    if resamples < 1:
        raise UsageError(f"--resamples must be at least 1, not {resamples}")


def _num(value: float) -> float | None:
    """JSON has no NaN: an undefined figure is null."""
    return None if not math.isfinite(value) else float(value)


class Decided:
    """One label set's test of every pair: differences, p-values, adjusted p-values, decisions."""

    def __init__(self, values: np.ndarray, plan: SignificancePlan) -> None:
        found = sig.run_test(plan.test, values, resamples=plan.resamples, seed=plan.seed)
        self.delta, self.p, self.topics = found.delta, found.p_value, found.topics
        self.adjusted = mt.adjust(self.p, plan.correction)
        self.significant = mt.rejected(self.p, plan.correction, plan.alpha)
        self.means = np.array([np.nanmean(row) if np.isfinite(row).any() else np.nan for row in values])


def significance(
    engine: EvaluationEngine,
    qrels: str,
    measure: str = "nDCG@10",
    plan: SignificancePlan = DEFAULT_PLAN,
    *,
    runs: list[str] | None = None,
    ref: str | None = None,
    topics: TopicChoice = EVERY_TOPIC,
) -> Significance:
    """Every pair of runs tested under `qrels` (and under `ref`, decisions compared, when given:
    both on the topics both label, or as `topics` frames them)."""
    if ref is not None and ref == qrels:
        raise UsageError("compare the decisions of two different label sets")
    m = measure_of(measure)
    evaluator = engine.evaluator(qrels)
    columns = chosen_runs(evaluator, runs)
    names = [evaluator.runs[c] for c in columns]
    if ref is None:
        check_subset(topics, evaluator.knows(topics.subset or ()))
        values = run_values(evaluator, m, columns, topics.subset)
        decided = decided_pairs(qrels, str(m), names, values, plan)
        if topics.subset is not None:  # how many of the chosen topics the label set labels
            decided["topics"] = len(evaluator.labelled_topics() & set(topics.subset))
        return decided
    # Both sets on the topics both label: a difference in decisions is then the labels' doing.
    frame = comparison_frame(engine, ref, qrels, topics)
    values = run_values(evaluator, m, columns, frame.qrels_topics())
    ref_values = run_values(engine.evaluator(ref), m, columns, frame.ref_topics())
    # A run no topic of the frame evaluates on a side has no values to test: left out and named, not
    # counted as a pair neither side finds significant (nor a column of NaN that sinks Tukey's test).
    kept = ~np.isnan(values).all(axis=1) & ~np.isnan(ref_values).all(axis=1)
    if kept.any() and not kept.all():
        left_out = tuple(name for name, keep in zip(names, kept.tolist(), strict=True) if not keep)
        names = [name for name, keep in zip(names, kept.tolist(), strict=True) if keep]
        values, ref_values = values[kept], ref_values[kept]
        frame = replace(frame, runs=tuple(names), runs_left_out=left_out)
    decided = decided_pairs(qrels, str(m), names, values, plan, ref=ref, ref_values=ref_values)
    decided["topics"], decided["frame"] = frame.topics, frame.as_json()
    return decided


def decided_pairs(
    qrels: str,
    measure: str,
    names: list[str],
    values: np.ndarray,
    plan: SignificancePlan,
    *,
    ref: str | None = None,
    ref_values: np.ndarray | None = None,
) -> Significance:
    """`significance`'s result from (runs × topics) per-topic values (and the reference's, in the
    same runs and topics, to compare decisions)."""
    _check(plan.test, plan.correction, plan.alpha, plan.resamples)
    tested = Decided(values, plan)
    i, j = sig.run_pairs(len(names))
    resampled = plan.test != "t"
    result = Significance(
        qrels=qrels,
        measure=measure,
        test=plan.test,
        correction=plan.correction,
        alpha=plan.alpha,
        runs=len(names),
        resamples=plan.resamples if resampled else None,
        seed=plan.seed if resampled else None,
        pairs=[],
    )
    if ref is None or ref_values is None:
        result["pairs"] = _ordered(_rows(names, i, j, tested, None))
        return result
    reference = Decided(ref_values, plan)
    classes = decisions.decision_classes(reference.significant, reference.delta, tested.significant, tested.delta)
    rows = _rows(names, i, j, tested, reference)
    for row, kind in zip(rows, classes, strict=True):
        row["decision"] = kind
    counts = decisions.agreement_counts(classes)
    result["ref"] = ref
    result["pairs"] = _ordered(rows)
    result["agreement"] = DecisionAgreement(
        both=int(counts["both"] or 0),
        opposite=int(counts["opposite"] or 0),
        ref_only=int(counts["ref_only"] or 0),
        qrels_only=int(counts["qrels_only"] or 0),
        neither=int(counts["neither"] or 0),
        precision=counts["precision"],
        recall=counts["recall"],
    )
    ref_means, means = np.nan_to_num(reference.means), np.nan_to_num(tested.means)
    result["top_k_tau"] = {str(k): decisions.top_k_tau(ref_means, means, k) for k in TOP_K}
    result["best_run"] = _best_run(names, i, j, tested, reference)
    return result


def _rows(
    names: list[str], i: np.ndarray, j: np.ndarray, tested: Decided, ref: Decided | None
) -> list[SignificantPair]:
    rows: list[SignificantPair] = []
    for c, (a, b) in enumerate(zip(i.tolist(), j.tolist(), strict=True)):
        # The run ahead under the tested set first; the reference's delta follows the same orientation.
        sign = -1.0 if tested.delta[c] < 0 else 1.0
        first, second = (a, b) if sign > 0 else (b, a)
        row = SignificantPair(
            run_a=names[first],
            run_b=names[second],
            delta=_num(sign * tested.delta[c]),
            p_value=_num(tested.p[c]),
            p_adjusted=_num(tested.adjusted[c]),
            significant=bool(tested.significant[c]),
            topics=int(tested.topics[c]),
        )
        if ref is not None:
            row["ref_delta"] = _num(sign * ref.delta[c])
            row["ref_p_value"] = _num(ref.p[c])
            row["ref_p_adjusted"] = _num(ref.adjusted[c])
            row["ref_significant"] = bool(ref.significant[c])
        rows.append(row)
    return rows


def _ordered(rows: list[SignificantPair]) -> list[SignificantPair]:
    """The most significant first: by p-value, then the larger difference, then by name."""
    return sorted(
        rows,
        key=lambda r: (
            r["p_value"] if r["p_value"] is not None else math.inf,
            -abs(r["delta"] or 0.0),
            r["run_a"],
            r["run_b"],
        ),
    )


def _best_run(names: list[str], i: np.ndarray, j: np.ndarray, tested: Decided, ref: Decided) -> BestRun | None:
    """The reference's best run (highest mean) and whether it beats every other significantly."""
    if len(names) < 2 or not np.isfinite(ref.means).any():
        return None
    best = int(np.nanargmax(ref.means))
    under_ref = decisions.beats_every_other(best, i, j, ref.delta, ref.significant)
    under_qrels = decisions.beats_every_other(best, i, j, tested.delta, tested.significant)
    return BestRun(run=names[best], ref=under_ref, qrels=under_qrels, both=under_ref and under_qrels)
