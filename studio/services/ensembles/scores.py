"""How each member of an ensemble and the ensemble itself agree with a reference: Cohen's κ of
the labels and Kendall τ-b of the leaderboards, as `studio agree` and `studio correlate` give them."""

from __future__ import annotations

from typing import Any

from studio.domain.errors import UsageError
from studio.services.evaluation.engine import EvaluationEngine
from studio.services.meta import comparison
from studio.store import ensembles as ensemble_store


def score_row(engine: EvaluationEngine, ref: str, qrels: str, role: str, measure: str) -> dict[str, Any]:
    agreed = comparison.agreement(engine, ref, qrels)
    tau = comparison.correlation(engine, ref, qrels, measure, details=False)["kendall_tau"]
    return {
        "qrels": qrels,
        "role": role,
        "pairs": agreed["pairs"],
        "kappa_graded": agreed["kappa_graded"],
        "kappa_binary": agreed["kappa_binary"],
        "kendall_tau": tau,
    }


def ensemble_scores(engine: EvaluationEngine, name: str, ref: str, measure: str = "nDCG@10") -> dict[str, Any]:
    """κ and τ against `ref` of each member of ensemble `name` and of the ensemble."""
    made = ensemble_store.ensemble(engine.db.cursor(), name)
    if made is None:
        raise UsageError(f"{name!r} is not an ensemble (see `studio ensemble --help`)")
    members, how = made
    rows = [score_row(engine, ref, m, "member", measure) for m in members if m != ref]
    rows.append(score_row(engine, ref, name, f"ensemble ({how})", measure))
    return {"ensemble": name, "how": how, "ref": ref, "measure": measure, "rows": rows}


def all_ensemble_scores(engine: EvaluationEngine, ref: str, measure: str = "nDCG@10") -> list[dict[str, Any]]:
    """`ensemble_scores` of every ensemble of the project (none: an empty list)."""
    return [
        ensemble_scores(engine, name, ref, measure)
        for name, _, _ in ensemble_store.ensembles(engine.db.cursor())
        if name != ref
    ]
