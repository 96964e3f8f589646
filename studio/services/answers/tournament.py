"""Systems against each other (`studio answers tournament`): the verdicts of a pairwise judge between
answers (`studio judge --answers --method pairwise --tournament`), each pair asked in both orders,
fitted by Bradley–Terry, with Elo-scaled ratings (RAGElo's scale) and bootstrap intervals over topics.

A match is a pair of answers to one topic judged in both orders: a win when both orders pick the same
answer, else a tie (half a win each), so the fit does not depend on the order answers were shown in.
"""

from __future__ import annotations

import json

import numpy as np

from studio.domain.answer_results import Tournament, TournamentRow
from studio.domain.choices import AnswerMethod
from studio.domain.errors import UsageError
from studio.domain.models import ANSWER_PREFIX
from studio.judges.pair_sampling import tournament_budget
from studio.metrics.bradley_terry import bootstrap_elo, elo, fit_strengths, topic_win_matrices
from studio.services.answers.sets import method_of_run
from studio.store import Connection
from studio.store import judge_outputs as output_store
from studio.store import judging as judge_store
from studio.store import labels as label_store

# (qid, answer a, answer b, score of a): 1 a won both orders, 0 b did, ½ the orders disagreed.
Match = tuple[str, str, str, float]


def tournament_run(con: Connection, label_set: str) -> int:
    """The newest judge run of `label_set`, refused unless it is a tournament between answers."""
    set_id = label_store.label_set_id(con, label_set)
    if set_id is None:
        raise UsageError(f"no label set named {label_set!r}")
    newest = judge_store.newest_judge_run(con, set_id)
    if newest is None or method_of_run(newest[1], json.loads(newest[2])) is not AnswerMethod.tournament:
        raise UsageError(
            f"{label_set!r} holds no tournament between answers "
            "(judge one with `studio judge --answers --method pairwise --tournament`)"
        )
    return newest[0]


def matches(answers: dict[tuple[str, str, str], float | None]) -> list[Match]:
    """Every pair of answers judged in both orders (a failed order leaves the pair out)."""
    found = []
    for (qid, a, b), a_first in sorted(answers.items()):
        b_first = answers.get((qid, b, a))
        if a >= b or a_first is None or b_first is None:
            continue
        score = 1.0 if (a_first, b_first) == (1.0, 2.0) else 0.0 if (a_first, b_first) == (2.0, 1.0) else 0.5
        found.append((qid, a.removeprefix(ANSWER_PREFIX), b.removeprefix(ANSWER_PREFIX), score))
    return found


def tournament(con: Connection, label_set: str, *, resamples: int = 1000, seed: int = 0) -> Tournament:
    """Ratings of every system that played, best first."""
    if resamples < 1:
        raise UsageError("--resamples must be at least 1")
    played = matches(output_store.preference_answers(con, tournament_run(con, label_set)))
    systems = sorted({s for _, a, b, _ in played for s in (a, b)})
    qids = sorted({m[0] for m in played}, key=lambda q: q.encode("utf-8"))
    index = {s: i for i, s in enumerate(systems)}
    by_topic: dict[str, list[tuple[int, int, float]]] = {q: [] for q in qids}
    for qid, a, b, score in played:
        by_topic[qid].append((index[a], index[b], score))
    topic_wins = topic_win_matrices(
        [np.array(by_topic[q], dtype=np.float64).reshape(-1, 3) for q in qids], len(systems)
    )
    strengths = fit_strengths(topic_wins.sum(axis=0)) if systems else np.zeros(0)
    ratings = elo(strengths)
    low, high = bootstrap_elo(topic_wins, resamples=resamples, seed=seed) if qids else (ratings, ratings)
    rows = [_row(s, i, strengths, (ratings, low, high), played) for s, i in index.items()]
    rows.sort(key=lambda r: (-r["elo"], r["system"]))
    return Tournament(
        label_set=label_set,
        systems=len(systems),
        topics=len(qids),
        matches=len(played),
        calls_per_topic_bound=2 * tournament_budget(len(systems)),
        resamples=resamples,
        seed=seed,
        rows=rows,
    )


def _row(
    system: str, i: int, strengths: np.ndarray, ratings: tuple[np.ndarray, np.ndarray, np.ndarray], played: list[Match]
) -> TournamentRow:
    """A system's rating (Elo with its interval) and record."""
    rating, low, high = ratings
    scores = [score if a == system else 1.0 - score for _, a, b, score in played if system in (a, b)]
    topics = {qid for qid, a, b, _ in played if system in (a, b)}
    return TournamentRow(
        system=system,
        strength=float(strengths[i]),
        elo=float(rating[i]),
        elo_low=float(low[i]),
        elo_high=float(high[i]),
        wins=sum(s == 1.0 for s in scores),
        ties=sum(s == 0.5 for s in scores),
        losses=sum(s == 0.0 for s in scores),
        topics=len(topics),
    )
