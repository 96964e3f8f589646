"""`studio audit simulate`: how often estimates from audits of a given budget would cover the
leaderboard of a label set taken as the unseen truth, and how wide they would be. A design that is
not uniform (`topics-neyman`, `pairs-uncertainty`) is set beside the uniform one of the same unit
at the same budget and seed."""

from __future__ import annotations

import math

import numpy as np

from studio.domain.audit_designs import AuditSimulation, RunCoverage
from studio.domain.errors import UsageError
from studio.metrics import ppi, ppi_ratio
from studio.services.audit import adaptive
from studio.services.audit.levels import at_level
from studio.services.audit.pairs import UNLABELLED, Pairs, pool_pairs, precision_units
from studio.services.audit.units import estimate_design, labelled_qids, topic_units
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.services.meta.unreachable_levels import side_warnings

DESIGNS = ("topics", "pairs", adaptive.TOPICS_NEYMAN, adaptive.PAIRS_UNCERTAINTY)


def simulate(
    engine: EvaluationEngine,
    ref: str,
    qrels: str,
    *,
    budget: int,
    design: str = "topics",
    trials: int = 1000,
    measure: str = "nDCG@10",
    seed: int = 0,
    level: float = 0.95,
    tuned: bool = False,
    estimator: str | None = None,
    llm_relevant: float | None = None,
    pilot: str | None = None,
    ref_topics_only: bool = False,
    beside_uniform: bool = True,
) -> AuditSimulation:
    """Draw `trials` random audits of `budget` units of `ref`'s pool (stratified: the units
    `qrels` labels, and those it lacks), grade them with `ref`, and report how often the intervals
    covered `ref`'s values and how wide they were beside gold-only intervals of the same audits.
    `pilot`: where `pairs-uncertainty` takes its calibration residuals (when `qrels` has no label
    distributions) and `topics-neyman` its strata's spreads (default: earlier audits of `qrels`).
    `ref_topics_only`: pair designs too are over the topics `ref` labels, as topic designs are.
    `beside_uniform`: also simulate the uniform design of the same unit (when `design` is not it)."""
    if design not in DESIGNS:
        raise UsageError(f"unknown design {design!r} (known: {', '.join(DESIGNS)})")
    if trials < 1:
        raise UsageError("--trials must be at least 1")
    kind = estimator or ("ppi++" if tuned else ppi.DEFAULT_ESTIMATOR)
    if kind not in ppi.ESTIMATORS:
        raise UsageError(f"unknown estimator {kind!r} (known: {', '.join(ppi.ESTIMATORS)})")
    m = measure_of(measure)
    llm_m = at_level(m, llm_relevant)
    unit = estimate_design(design)
    if unit == "topics":
        # The truth is ref's mean over the topics it labels; those qrels lacks get no prediction.
        within = labelled_qids(engine.evaluator(ref))
        units = topic_units(engine, qrels, ref, m, within=within, llm_measure=llm_m)
        count, strata, runs = len(units.keys), units.strata, units.runs
        missing = int((units.strata == 1).sum()) if units.strata is not None else 0
        truth = f"{ref}'s mean {m} over the {count} topics {ref} labels"
    else:
        pairs = pool_pairs(engine, qrels, ref, m, gold_is_pool=True, gold_topics_only=ref_topics_only)
        count, strata, runs = len(pairs.keys), pairs.strata, pairs.runs
        missing = int((pairs.strata == UNLABELLED).sum())
        truth = (
            f"{m} under {ref}'s grades of the {count} pairs {ref} or {qrels} labels (a pair {ref} lacks: not relevant)"
        )
    if not 2 <= budget <= count:
        raise UsageError(f"--budget must lie between 2 and {count} ({design} of {ref}'s pool)")
    note: str | None = None  # how a design that is not uniform drew its units
    if design == adaptive.TOPICS_NEYMAN:
        con, rng = engine.db.cursor(), np.random.default_rng(seed)
        own = np.zeros(count, dtype=np.int64) if strata is None else strata
        keys = [str(key) for key in units.keys]
        draws = adaptive.simulated_topic_draws(con, qrels, keys, own, budget, trials, rng, pilot)
        masks, pi, strata, note = draws.masks, draws.pi, draws.strata, draws.note
    elif design == adaptive.PAIRS_UNCERTAINTY:
        con, rng = engine.db.cursor(), np.random.default_rng(seed)
        draws = adaptive.simulated_pair_draws(con, qrels, pairs.keys, pairs.strata, budget, trials, rng, pilot)
        masks, pi, strata, note = draws.masks, draws.pi, draws.strata, draws.note
    else:
        masks = ppi.draw_samples(count, budget, trials, seed, strata)
        pi = ppi.inclusion(masks, strata)
    if unit == "pairs" and m.name == "nDCG":
        found = _ndcg_coverage(masks, pairs, pi, level=level, estimator=kind)
    else:
        if unit == "pairs":
            a, b = precision_units(pairs, m.rel, llm_m.rel)
        else:
            a, b = units.a, units.b
        ours = ppi.estimate_totals(
            masks,
            a,
            b,
            pi,
            level=level,
            estimator=kind,
            strata=strata,
            pseudo=ppi.PSEUDO_PAIR if unit == "pairs" else ppi.PSEUDO_TOPIC,
        )
        gold = ppi.estimate_totals(masks, a, None, pi, level=level, strata=strata)
        found = ppi.coverage(ours, gold, a.sum(axis=0)[None, :])
        found = ppi.Coverage(found.coverage, found.width, found.gold_coverage, found.gold_width, ours.lam.mean())
    summary = found.summary()
    result = AuditSimulation(
        ref=ref,
        qrels=qrels,
        measure=str(m),
        llm_measure=str(llm_m),
        design=design,
        budget=budget,
        units=count,
        units_qrels_lacks=missing,
        trials=trials,
        seed=seed,
        level=level,
        estimator=kind,
        truth=truth,
        warnings=side_warnings(engine, ref, qrels, m, llm_m),
        coverage=_number(summary["coverage"]),
        min_run_coverage=_number(summary["min_run_coverage"]),
        width=_number(summary["width"]),
        gold_coverage=_number(summary["gold_coverage"]),
        gold_width=_number(summary["gold_width"]),
        width_ratio=_number(summary["width_ratio"]),
        mean_lambda=_number(summary["mean_lambda"]),
        per_run=[
            RunCoverage(
                run=run,
                coverage=float(found.coverage[r]),
                width=float(found.width[r]),
                gold_width=float(found.gold_width[r]),
            )
            for r, run in enumerate(runs)
        ],
    )
    if note is not None:  # a design that is not uniform
        result["draws"] = note
        if beside_uniform:
            uniform = _uniform_beside(engine, result, unit, llm_relevant, ref_topics_only)
            result["uniform_coverage"] = uniform["coverage"]
            result["uniform_width"] = uniform["width"]
            result["width_vs_uniform"] = _ratio(result["width"], uniform["width"])
    return result


def _number(value: float) -> float | None:
    """A summary figure as JSON can hold it: NaN (a mean over nothing, a ratio to zero) is None."""
    return value if math.isfinite(value) else None


def _ratio(width: float | None, base: float | None) -> float | None:
    """`width` / `base`; None when either is unknown or `base` is 0."""
    return width / base if width is not None and base else None


def _uniform_beside(
    engine: EvaluationEngine,
    found: AuditSimulation,
    unit: str,
    llm_relevant: float | None,
    ref_topics_only: bool,
) -> AuditSimulation:
    """The uniform design of `found`'s unit at its budget, trials and seed, to set `found` beside."""
    return simulate(
        engine,
        found["ref"],
        found["qrels"],
        budget=found["budget"],
        design=unit,
        trials=found["trials"],
        measure=found["measure"],
        seed=found["seed"],
        level=found["level"],
        estimator=found["estimator"],
        llm_relevant=llm_relevant,
        ref_topics_only=ref_topics_only,
    )


def _ndcg_coverage(masks: np.ndarray, pairs: Pairs, pi: np.ndarray, *, level: float, estimator: str) -> ppi.Coverage:
    """Coverage of nDCG@k from pair audits: the linearised estimator, one audit at a time."""
    truth = ppi_ratio.true_ndcg(pairs.pool, pairs.gold)[None, :]
    ours: list[ppi.Intervals] = []
    gold: list[ppi.Intervals] = []
    for mask in masks:
        for out, only in ((ours, False), (gold, True)):
            out.append(
                ppi_ratio.estimate_ndcg(
                    mask,
                    pairs.pool,
                    pairs.gold,
                    pairs.llm,
                    pi,
                    level=level,
                    estimator=estimator,
                    strata=pairs.strata,
                    gold_only=only,
                )
            )
    found = ppi.coverage(_stack(ours), _stack(gold), truth)
    return ppi.Coverage(found.coverage, found.width, found.gold_coverage, found.gold_width, _stack(ours).lam.mean())


def _stack(found: list[ppi.Intervals]) -> ppi.Intervals:
    return ppi.Intervals(
        *(np.concatenate([getattr(f, name) for f in found]) for name in ("estimate", "low", "high", "se", "lam"))
    )
