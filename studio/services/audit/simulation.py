"""`studio audit simulate`: how often estimates from audits of a given budget would cover the
leaderboard of a label set taken as the unseen truth, and how wide they would be."""

from __future__ import annotations

from typing import Any

import numpy as np

from studio.domain.errors import UsageError
from studio.metrics import ppi
from studio.services.audit.units import DESIGNS, labelled_qids, pair_units, topic_units
from studio.services.evaluation.engine import EvaluationEngine, measure_of


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
) -> dict[str, Any]:
    """Draw `trials` simple random audits of `budget` units from `qrels`' pool, grade them with
    `ref`, and report the intervals' coverage of `ref`'s values and their widths."""
    if design not in DESIGNS:
        raise UsageError(f"unknown design {design!r} (known: {', '.join(DESIGNS)})")
    if trials < 1:
        raise UsageError("--trials must be at least 1")
    m = measure_of(measure)
    if design == "topics":
        # The truth must be known on every unit: the topics both label sets cover.
        shared = set(labelled_qids(engine.evaluator(ref)))
        within = [q for q in labelled_qids(engine.evaluator(qrels)) if q in shared]
        units = topic_units(engine, qrels, ref, m, within=within)
        truth = f"{ref}'s mean {m} over the {len(within)} topics both label sets cover"
    else:
        units = pair_units(engine, qrels, ref, m, missing_is_unjudged=True)
        truth = f"{m} under {ref}'s grades of {qrels}'s pool (a pair {ref} lacks counts as not relevant)"
    count = len(units.keys)
    if not 2 <= budget <= count:
        raise UsageError(f"--budget must lie between 2 and {count} ({design} of {qrels})")
    found = ppi.simulate(units.a, units.b, budget=budget, trials=trials, seed=seed, level=level, tuned=tuned)
    return {
        "ref": ref,
        "qrels": qrels,
        "measure": str(m),
        "design": design,
        "budget": budget,
        "units": count,
        "trials": trials,
        "seed": seed,
        "level": level,
        "power_tuning": tuned,
        "truth": truth,
        **{k: (v if np.isfinite(v) else None) for k, v in found.summary().items()},  # JSON has no NaN
        "per_run": [
            {
                "run": run,
                "coverage": float(found.coverage[r]),
                "width": float(found.width[r]),
                "gold_width": float(found.gold_width[r]),
            }
            for r, run in enumerate(units.runs)
        ],
    }
