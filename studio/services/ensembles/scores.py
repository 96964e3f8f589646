"""How each member of an ensemble and the ensemble itself agree with a reference: Cohen's κ of
the labels and Kendall τ-b of the leaderboards, as `studio agree` and `studio correlate` give them
(each on the topics it and the reference both label)."""

from __future__ import annotations

from studio.domain.comparisons import EnsembleScore, EnsembleScores
from studio.domain.errors import UsageError
from studio.domain.frames import EVERY_TOPIC, TopicChoice
from studio.services.evaluation.engine import EvaluationEngine
from studio.services.meta.label_agreement import agreement
from studio.services.meta.rank_correlation import correlation
from studio.store import ensembles as ensemble_store


def score_row(
    engine: EvaluationEngine, ref: str, qrels: str, role: str, measure: str, topics: TopicChoice = EVERY_TOPIC
) -> EnsembleScore:
    agreed = agreement(engine, ref, qrels, topics=topics)
    correlated = correlation(engine, ref, qrels, measure, topics=topics, details=False)
    return EnsembleScore(
        qrels=qrels,
        role=role,
        pairs=agreed["pairs"],
        kappa_graded=agreed["kappa_graded"],
        kappa_binary=agreed["kappa_binary"],
        kendall_tau=correlated["kendall_tau"],
        topics=agreed["topics"],
        frame=agreed["frame"],
    )


def ensemble_scores(
    engine: EvaluationEngine, name: str, ref: str, measure: str = "nDCG@10", topics: TopicChoice = EVERY_TOPIC
) -> EnsembleScores:
    """κ and τ against `ref` of each member of ensemble `name` and of the ensemble, each on its frame."""
    made = ensemble_store.ensemble(engine.db.cursor(), name)
    if made is None:
        raise UsageError(f"{name!r} is not an ensemble (see `studio ensemble --help`)")
    members, how = made
    rows = [score_row(engine, ref, m, "member", measure, topics) for m in members if m != ref]
    rows.append(score_row(engine, ref, name, f"ensemble ({how})", measure, topics))
    return EnsembleScores(ensemble=name, how=how, ref=ref, measure=measure, rows=rows)


def all_ensemble_scores(
    engine: EvaluationEngine, ref: str, measure: str = "nDCG@10", topics: TopicChoice = EVERY_TOPIC
) -> list[EnsembleScores]:
    """`ensemble_scores` of every ensemble of the project (none: an empty list)."""
    return [
        ensemble_scores(engine, name, ref, measure, topics)
        for name, _, _ in ensemble_store.ensembles(engine.db.cursor())
        if name != ref
    ]
