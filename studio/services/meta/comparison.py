"""Comparing two label sets: leaderboard correlation, label agreement, the review queue."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from studio.domain.errors import UsageError
from studio.domain.rows import Disagreement
from studio.metrics import agreement as agree
from studio.metrics import correlation as corr
from studio.metrics.names import Measure
from studio.services.audit.levels import at_level, uses_level
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.services.meta.unreachable_levels import side_warnings, threshold_warnings
from studio.store import ensembles as ensemble_store

BOOTSTRAP_RESAMPLES = 1000
SUBSAMPLE_FRACTIONS = (1 / 3, 2 / 3)
SUBSAMPLE_TRIALS = 100


def _finite(value: float) -> float | None:
    """JSON has no NaN: undefined statistics are reported as null."""
    return None if value is None or np.isnan(value) else float(value)


def correlation(
    engine: EvaluationEngine,
    ref: str,
    qrels: str,
    measure: str | Measure = "nDCG@10",
    *,
    complete: bool = False,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = 0,
    details: bool = True,
    llm_relevant: float | None = None,
) -> dict[str, Any]:
    """How well the leaderboard under `qrels` reproduces the one under `ref`.

    `llm_relevant`: `qrels`' own relevance level for a binary measure (the measure's `rel=` stays
    the reference's), so a 0/1 judge can stand beside people's "relevant at 2"."""
    m = measure_of(measure)
    aud_m = at_level(m, llm_relevant)
    ref_eval, aud_eval = engine.evaluator(ref), engine.evaluator(qrels)
    runs = ref_eval.runs
    x = ref_eval.means(m, complete=complete)
    y = aud_eval.means(aud_m, complete=complete)
    levels = side_levels(m, aud_m)
    if not (_evaluates_a_topic(ref_eval, m) and _evaluates_a_topic(aud_eval, aud_m)):
        empty = _without_topics(ref, qrels, m, levels, runs, x, y, details=details, resamples=resamples, seed=seed)
        return empty | {"warnings": side_warnings(engine, ref, qrels, m, aud_m)} if details else empty
    result: dict[str, Any] = {
        "ref": ref,
        "qrels": qrels,
        "measure": str(m),
        "levels": levels,
        "runs": len(runs),
        "kendall_tau": _finite(corr.kendall_tau_b(x, y)),
        "kendall_variant": "tau-b",
        "kendall_tau_a": _finite(corr.kendall_tau_a(x, y)),
        "spearman_rho": _finite(corr.spearman_rho(x, y)),
        "tau_ap": _finite(corr.tau_ap(x, y)),
        "rbo": _finite(corr.rbo(corr.ranking(runs, x), corr.ranking(runs, y), p=0.9)),
    }
    if not details:  # the live view after an edit: the count, not the pairs
        result["swaps"] = corr.swap_count(x, y)
        return result
    swaps = corr.swapped_pairs(runs, x, y)
    result["swaps"] = len(swaps)
    ref_matrix, aud_matrix = aligned_matrices(ref_eval, aud_eval, m, aud_m)
    interval = corr.bootstrap_tau(ref_matrix, aud_matrix, resamples=resamples, seed=seed)
    result.update(
        {
            "swapped_pairs": swaps,
            "per_topic_tau": _finite(corr.per_topic_tau(ref_matrix, aud_matrix)),
            "pooled_tau": _finite(corr.pooled_tau(ref_matrix, aud_matrix)),
            "bootstrap": {
                **{k: _finite(v) for k, v in interval.as_dict().items()},
                "resamples": resamples,
                "seed": seed,
                "level": 0.95,
            },
            "subsampling": [
                {
                    k: (_finite(v) if isinstance(v, float) and k != "fraction" else v)
                    for k, v in corr.subsample_tau(
                        ref_matrix, aud_matrix, f, trials=SUBSAMPLE_TRIALS, seed=seed
                    ).items()
                }
                for f in SUBSAMPLE_FRACTIONS
            ],
            "topics": int(ref_matrix.shape[0]),
            "leaderboard": [
                {"run": run, "ref": float(a), "qrels": float(b)} for run, a, b in zip(runs, x, y, strict=True)
            ],
            "warnings": side_warnings(engine, ref, qrels, m, aud_m),
        }
    )
    return result


def side_levels(ref_measure: Measure, qrels_measure: Measure) -> dict[str, float] | None:
    """The relevance level each side's leaderboard used (None: the measure reads grades as gains)."""
    return {"ref": ref_measure.rel, "qrels": qrels_measure.rel} if uses_level(ref_measure) else None


def _evaluates_a_topic(evaluator: Any, measure: Measure) -> bool:
    """Whether some run has a topic the label set labels: without one every run ties at 0."""
    return bool((~np.isnan(evaluator.per_topic(measure))).any())


def _without_topics(
    ref: str,
    qrels: str,
    measure: Measure,
    levels: dict[str, float] | None,
    runs: list[str],
    x: np.ndarray,
    y: np.ndarray,
    *,
    details: bool,
    resamples: int,
    seed: int,
) -> dict[str, Any]:
    """`correlation`'s result when a label set gives no run a topic (an empty set, or one of
    other topics): every statistic null, not the τ_AP or RBO of leaderboards tied at 0."""
    result: dict[str, Any] = {
        "ref": ref,
        "qrels": qrels,
        "measure": str(measure),
        "levels": levels,
        "runs": len(runs),
        "kendall_tau": None,
        "kendall_variant": "tau-b",
        **dict.fromkeys(("kendall_tau_a", "spearman_rho", "tau_ap", "rbo")),
        "swaps": 0,
    }
    if not details:
        return result
    nothing = dict.fromkeys(("mean", "std", "min", "max"))
    return result | {
        "swapped_pairs": [],
        "per_topic_tau": None,
        "pooled_tau": None,
        "bootstrap": {"low": None, "high": None, "mean": None, "resamples": resamples, "seed": seed, "level": 0.95},
        "subsampling": [{"fraction": f, "topics": 0} | nothing for f in SUBSAMPLE_FRACTIONS],
        "topics": 0,
        "leaderboard": [{"run": run, "ref": float(a), "qrels": float(b)} for run, a, b in zip(runs, x, y, strict=True)],
    }


def aligned_matrices(
    ref_eval: Any, aud_eval: Any, measure: Measure, aud_measure: Measure | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Per-topic matrices of both label sets over the topics both labelled (`aud_measure`: the
    audited set's own form of the measure, e.g. at its own relevance level)."""
    ref_rows = {q: i for i, q in enumerate(ref_eval.qids)}
    aud_rows = {q: i for i, q in enumerate(aud_eval.qids)}
    ref_labelled = ref_eval.qrels_topics()
    aud_labelled = aud_eval.qrels_topics()
    shared = [q for q in ref_eval.qids if q in aud_rows and ref_labelled[ref_rows[q]] and aud_labelled[aud_rows[q]]]
    ref_m = ref_eval.per_topic(measure)[[ref_rows[q] for q in shared]]
    aud_m = aud_eval.per_topic(aud_measure or measure)[[aud_rows[q] for q in shared]]
    return ref_m, aud_m


def _shared_pairs(
    ref: Mapping[str, Mapping[str, float]], aud: Mapping[str, Mapping[str, float]]
) -> Iterator[tuple[str, str, float, float]]:
    for qid, grades in ref.items():
        other = aud.get(qid)
        if not other:
            continue
        for docid, grade in grades.items():
            if docid in other:
                yield qid, docid, grade, other[docid]


def default_threshold(grades: np.ndarray) -> float:
    """Binary relevance threshold: ≥ 2 on graded (0–3) scales, ≥ 1 on binary ones."""
    return 2.0 if len(grades) and grades.max() > 1 else 1.0


def agreement(
    engine: EvaluationEngine,
    ref: str,
    qrels: str,
    *,
    ref_threshold: float | None = None,
    threshold: float | None = None,
    relevant: float = 1.0,
) -> dict[str, Any]:
    """κ (binary, graded, weighted), Krippendorff's α, confusion, per-topic κ and alignment."""
    ref_labels = {q: t.judged for q, t in engine.evaluator(ref).labels.items()}
    aud_labels = {q: t.judged for q, t in engine.evaluator(qrels).labels.items()}
    pairs = list(_shared_pairs(ref_labels, aud_labels))
    a = np.array([p[2] for p in pairs], dtype=np.float64)
    b = np.array([p[3] for p in pairs], dtype=np.float64)
    ref_t = ref_threshold if ref_threshold is not None else default_threshold(a)
    aud_t = threshold if threshold is not None else default_threshold(b)
    categories = agree.categories_of(a, b)
    per_topic: dict[str, float | None] = {}
    for qid in sorted({p[0] for p in pairs}, key=lambda q: q.encode("utf-8")):
        mask = np.array([p[0] == qid for p in pairs])
        per_topic[qid] = _finite(agree.cohen_kappa(a[mask], b[mask]))
    return {
        "ref": ref,
        "qrels": qrels,
        "pairs": len(pairs),
        "thresholds": {"ref": ref_t, "qrels": aud_t},
        "warnings": threshold_warnings(engine, ref, qrels, ref_t, aud_t),
        "kappa_binary": _finite(agree.binary_kappa(a, b, ref_t, aud_t)),
        "kappa_graded": _finite(agree.cohen_kappa(a, b)),
        "kappa_linear": _finite(agree.cohen_kappa(a, b, "linear")),
        "kappa_quadratic": _finite(agree.cohen_kappa(a, b, "quadratic")),
        "krippendorff_alpha": _finite(agree.krippendorff_alpha_ordinal(a, b)),
        "categories": categories,
        "confusion": agree.confusion_matrix(a, b, categories).tolist(),
        "more_lenient": float((b > a).mean()) if len(pairs) else None,
        "stricter": float((b < a).mean()) if len(pairs) else None,
        "per_topic_kappa": per_topic,
        "alignment": {  # a category pair without pairs has undefined rates: null, not NaN
            pair: {k: _finite(v) if isinstance(v, float) else v for k, v in bucket.items()}
            for pair, bucket in agree.alignment(ref_labels, aud_labels, relevant).items()
        },
    }


def disagreements(
    engine: EvaluationEngine,
    ref: str,
    qrels: str,
    measure: str | Measure = "nDCG@10",
    *,
    limit: int | None = None,
    order: str = "delta-tau",
) -> list[Disagreement]:
    """Pairs the two label sets grade differently, the most leaderboard-changing first (`order`
    "spread": those whose judges disagree most first, see `by_spread`).

    For each pair, the audited label is set to the reference grade on a scratch evaluator and
    the change in Kendall τ between the two leaderboards is measured; ties in |Δτ| go to the
    larger grade distance.
    """
    m = measure_of(measure)
    ref_eval = engine.evaluator(ref)
    x = ref_eval.means(m)
    audited = engine.evaluator(qrels).labels
    # The scratch copy takes the audited set's document numbers: no topic's docids are read.
    scratch = type(ref_eval)(
        engine.rankings(),
        {q: dict(t.judged) for q, t in audited.items()},
        {q: dict(t.numbers) for q, t in audited.items()},
    )
    before = corr.kendall_tau_b(x, scratch.means(m))
    by_topic: dict[str, list[tuple[str, float, float]]] = {}
    ref_labels = {q: t.judged for q, t in ref_eval.labels.items()}
    aud_labels = {q: t.judged for q, t in audited.items()}
    for qid, docid, ref_grade, grade in _shared_pairs(ref_labels, aud_labels):
        if ref_grade != grade:
            by_topic.setdefault(qid, []).append((docid, ref_grade, grade))
    # An edit changes one topic's row: each run's mean follows from the other topics' totals.
    matrix = scratch.per_topic(m)  # updated in place by set_label
    filled = ~np.isnan(matrix)
    totals, counts = np.where(filled, matrix, 0.0).sum(axis=0), filled.sum(axis=0)
    queue: list[Disagreement] = []
    for qid, pairs in by_topic.items():
        row = matrix[scratch.row[qid]]
        other_totals = totals - np.where(np.isnan(row), 0.0, row)
        other_counts = counts - ~np.isnan(row)
        edited = []
        for docid, ref_grade, grade in pairs:
            scratch.set_label(qid, docid, ref_grade)
            counted = ~np.isnan(row)
            n = other_counts + counted
            edited.append(np.divide(other_totals + np.where(counted, row, 0.0), n, out=np.zeros(len(n)), where=n > 0))
            scratch.set_label(qid, docid, grade)
        # One topic's edits share x's pair signs: their τ come as one matrix product.
        after = corr.kendall_tau_b_rows(x, np.array(edited))
        for (docid, ref_grade, grade), tau in zip(pairs, after, strict=True):
            delta = (tau - before) if not (np.isnan(tau) or np.isnan(before)) else 0.0
            queue.append(
                Disagreement(
                    qid=qid,
                    docid=docid,
                    ref_grade=ref_grade,
                    grade=grade,
                    delta_tau=float(delta),
                    distance=abs(ref_grade - grade),
                )
            )
    queue.sort(key=lambda d: (-abs(d["delta_tau"]), -(d["distance"] or 0.0), d["qid"], d["docid"]))
    if order == "spread":
        queue = by_spread(engine, [ref, qrels], queue)
    elif order != "delta-tau":
        raise UsageError(f"unknown order {order!r} (delta-tau, spread)")
    return queue[:limit] if limit is not None else queue


def by_spread(engine: EvaluationEngine, label_sets: list[str], queue: list[Disagreement]) -> list[Disagreement]:
    """The queue with the pairs whose judges disagree most first: by the spread (standard deviation,
    then range) stored with the audited set's labels (an ensemble or a judge's samples), or else
    the reference's; pairs without a spread last, each group in its τ order."""
    con = engine.db.cursor()
    spreads: dict[tuple[str, str], ensemble_store.SpreadRow] = {}
    for name in reversed(label_sets):
        spreads = spreads or ensemble_store.spreads(con, engine.label_set_id(name))
    rows: list[Disagreement] = []
    for row in queue:
        found = spreads.get((row["qid"], row["docid"]))
        spread = None if found is None else round(found.std, 6)
        spread_range = None if found is None else found.high - found.low
        with_spread = Disagreement(**row)
        with_spread["spread"], with_spread["spread_range"] = spread, spread_range
        rows.append(with_spread)
    return sorted(
        rows, key=lambda d: (d.get("spread") is None, -(d.get("spread") or 0.0), -(d.get("spread_range") or 0.0))
    )


COMPAT_MEASURE = "Compat(p=0.9)"
COMPAT_REFERENCE_MEASURE = "nDCG@10"


def compare(
    engine: EvaluationEngine,
    ref: str,
    qrels: list[str],
    measure: str | Measure = "nDCG@10",
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Judging methods on a level playing field: per label set, agreement with the reference's
    labels (κ binary and graded, Krippendorff's α, alignment, leniency) and preservation of its
    leaderboard (τ-b and τ_AP with bootstrap intervals over topics, and the τ between the
    reference's nDCG@10 leaderboard and the label set's compatibility leaderboard, as in Table 3
    of Arabzadeh & Clarke 2025)."""
    m = measure_of(measure)
    ref_eval = engine.evaluator(ref)
    compat_reference = ref_eval.means(measure_of(COMPAT_REFERENCE_MEASURE))
    rows = []
    for name in qrels:
        if name == ref:
            raise UsageError(f"{name!r} is the reference; compare it with other label sets")
        labels = agreement(engine, ref, name)
        aud_eval = engine.evaluator(name)
        ref_matrix, aud_matrix = aligned_matrices(ref_eval, aud_eval, m)
        x, y = ref_eval.means(m), aud_eval.means(m)
        tau_interval = corr.bootstrap(ref_matrix, aud_matrix, corr.kendall_tau_b, resamples=resamples, seed=seed)
        ap_interval = corr.bootstrap(ref_matrix, aud_matrix, corr.tau_ap, resamples=resamples, seed=seed)
        compat = aud_eval.means(measure_of(COMPAT_MEASURE))
        rows.append(
            {
                "qrels": name,
                "measure": str(m),
                "pairs": labels["pairs"],
                "kappa_binary": labels["kappa_binary"],
                "kappa_graded": labels["kappa_graded"],
                "krippendorff_alpha": labels["krippendorff_alpha"],
                "alignment": labels["alignment"],
                "kendall_tau": _finite(corr.kendall_tau_b(x, y)),
                "kendall_tau_low": _finite(tau_interval.low),
                "kendall_tau_high": _finite(tau_interval.high),
                "tau_ap": _finite(corr.tau_ap(x, y)),
                "tau_ap_low": _finite(ap_interval.low),
                "tau_ap_high": _finite(ap_interval.high),
                "compat_tau": _finite(corr.kendall_tau_b(compat_reference, compat)),
                "more_lenient": labels["more_lenient"],
                "stricter": labels["stricter"],
            }
        )
    return rows
