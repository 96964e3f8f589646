"""Stuffing, separated (Alaofi et al. 2024): each perturbation on its own — the query's words only,
the claim of relevance only, or both — at the start, the middle or the end of the passage.

For a pointwise judge, a sample of reference-non-relevant pairs it labelled is graded again with
each perturbation; a flip is a passage the judge called non-relevant before and relevant after
(at the label scale's usual threshold). For a pairwise judge, a non-relevant passage is put
against a relevant one of the same topic, asked in both orders before and after the stuffing; a
flip is a pair the judge no longer prefers the relevant passage of in both orders. Each rate
comes with a 95% Wilson interval. What it would do to the leaderboard: the judge's labels with
every flipped passage relevant (pointwise; its grade after the stuffing), and the runs that rise.
Every call goes through the call cache.
"""

from __future__ import annotations

import math
import random
from collections.abc import Generator, Iterator, Sequence

import numpy as np

from studio.domain.errors import UsageError
from studio.domain.judge_results import StuffingEffect, StuffingProbe
from studio.domain.judging import JudgeProgress
from studio.judges.backend import Backend, ChatRequest
from studio.judges.methods import Method, get_method
from studio.metrics.correlation import kendall_tau_b
from studio.metrics.evaluator import Evaluator
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.services.judging.backends import make_backend
from studio.services.judging.cached_calls import Answers, ask
from studio.services.judging.config import last_config
from studio.services.meta.label_agreement import default_threshold
from studio.services.sensitivity.probes import PROBE_SENTENCE
from studio.store import pools
from studio.store import rankings as ranking_store

KINDS = ("query", "claim", "both")
POSITIONS = ("start", "middle", "end")
Z95 = 1.959963984540054


def insertion(kind: str, query: str) -> str:
    """What a perturbation puts into the passage."""
    return {"query": query, "claim": PROBE_SENTENCE, "both": f"{query}. {PROBE_SENTENCE}"}[kind]


def stuff(passage: str, query: str, kind: str, position: str) -> str:
    """The passage with the perturbation's text at its start, in its middle (between words) or at its end."""
    text = insertion(kind, query)
    if position == "start":
        return f"{text}\n{passage}"
    if position == "end":
        return f"{passage}\n{text}"
    words = passage.split(" ")
    half = len(words) // 2
    return " ".join([*words[:half], text, *words[half:]])


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float | None, float | None]:
    """The Wilson score interval of a proportion (None without trials)."""
    if trials == 0:
        return None, None
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


def effect(kind: str, position: str, flips: Sequence[bool | None]) -> StuffingEffect:
    answered = [f for f in flips if f is not None]
    low, high = wilson(sum(answered), len(answered))
    return StuffingEffect(
        perturbation=kind,
        position=position,
        documents=len(flips),
        failures=len(flips) - len(answered),
        flipped=sum(answered),
        flip_rate=sum(answered) / len(answered) if answered else None,
        low=low,
        high=high,
        kendall_tau=None,
        runs_rising=[],
    )


def probe_stuffing(
    engine: EvaluationEngine,
    label_set: str,
    *,
    ref: str = "human",
    limit: int = 40,
    seed: int = 0,
    kinds: Sequence[str] = KINDS,
    positions: Sequence[str] = POSITIONS,
    measure: str = "nDCG@10",
    backend: Backend | None = None,
) -> Iterator[JudgeProgress | StuffingProbe]:
    """Every perturbation × position on the judge of `label_set`, one at a time."""
    config = last_config(engine.db, label_set)
    method = get_method(config.method, config.prompt)
    if method.item_kind is not None:
        raise UsageError(f"stuffing probes cover judges of passages, not {method.name}")
    backend = backend or make_backend(engine.db, config)
    if method.pairwise:
        effects = yield from _pairwise(engine, label_set, method, backend, ref, limit, seed, kinds, positions)
    else:
        effects = yield from _pointwise(engine, label_set, method, backend, ref, limit, seed, kinds, positions, measure)
    backend.close()
    yield StuffingProbe(label_set=label_set, method=method.name, model=backend.model, effects=effects)


def _non_relevant(engine: EvaluationEngine, ref: str, judged: dict[str, dict[str, float]]) -> list[tuple[str, str]]:
    reference = {q: t.judged for q, t in engine.evaluator(ref).labels.items()}
    return sorted((q, d) for q, docs in reference.items() for d, g in docs.items() if g < 1 and d in judged.get(q, {}))


def _pointwise(
    engine: EvaluationEngine,
    label_set: str,
    method: Method,
    backend: Backend,
    ref: str,
    limit: int,
    seed: int,
    kinds: Sequence[str],
    positions: Sequence[str],
    measure: str,
) -> Generator[JudgeProgress, None, list[StuffingEffect]]:
    judged = {q: dict(t.judged) for q, t in engine.evaluator(label_set).labels.items()}
    candidates = _non_relevant(engine, ref, judged)
    random.Random(seed).shuffle(candidates)
    pairs = sorted(candidates[:limit])
    if not pairs:
        raise UsageError(f"no pair is non-relevant in {ref!r} and labelled in {label_set!r}")
    con = engine.db.cursor()
    queries, passages = pools.topic_texts(con, [q for q, _ in pairs]), pools.passage_texts(con, pairs)
    cases = [(k, p) for k in kinds for p in positions]
    requests: list[ChatRequest] = [
        method.request((q, d), query=queries[q], passage=stuff(passages[(q, d)], queries[q], kind, position))
        for kind, position in cases
        for q, d in pairs
    ]
    answers: Answers = yield from ask(engine.db, backend, requests)
    everything = [g for docs in judged.values() for g in docs.values()]
    threshold = default_threshold(np.array(everything, dtype=np.float64)) if everything else 1.0
    effects = []
    for index, (kind, position) in enumerate(cases):
        after = [_label(method, answers, index * len(pairs) + i) for i in range(len(pairs))]
        flips = [None if a is None else judged[q][d] < threshold <= a for (q, d), a in zip(pairs, after, strict=True)]
        found = effect(kind, position, flips)
        raised = {(q, d): a for (q, d), a, f in zip(pairs, after, flips, strict=True) if f and a is not None}
        tau, rising = _leaderboard_shift(engine, label_set, raised, measure)
        effects.append(StuffingEffect(**{**found, "kendall_tau": tau, "runs_rising": rising}))
    return effects


def _label(method: Method, answers: Answers, index: int) -> float | None:
    output = answers.output(index)
    parsed = method.parse(output) if output is not None else None
    return parsed.label if parsed is not None else None


def _leaderboard_shift(
    engine: EvaluationEngine, label_set: str, raised: dict[tuple[str, str], float], measure: str
) -> tuple[float | None, list[str]]:
    """τ between the judge's leaderboard and the one with the flipped passages' new grades, and
    the runs that move up in it (by rank, best first)."""
    rankings = engine.rankings()
    if not rankings.runs:
        return None, []
    labels, numbers = ranking_store.numbered_labels(engine.db.cursor(), engine.label_set_id(label_set))
    evaluator = Evaluator(rankings, labels, numbers)
    m = measure_of(measure)
    before = evaluator.means(m)
    for (qid, docid), grade in raised.items():
        evaluator.set_label(qid, docid, grade)
    after = evaluator.means(m)
    runs = evaluator.runs
    rank_before = {r: i for i, r in enumerate(sorted(runs, key=lambda r: -before[runs.index(r)]))}
    rank_after = {r: i for i, r in enumerate(sorted(runs, key=lambda r: -after[runs.index(r)]))}
    rising = sorted((r for r in runs if rank_after[r] < rank_before[r]), key=lambda r: rank_after[r])
    tau = kendall_tau_b(before, after) if len(runs) > 1 else float("nan")
    return (None if math.isnan(tau) else float(tau)), rising


def _pairwise(
    engine: EvaluationEngine,
    label_set: str,
    method: Method,
    backend: Backend,
    ref: str,
    limit: int,
    seed: int,
    kinds: Sequence[str],
    positions: Sequence[str],
) -> Generator[JudgeProgress, None, list[StuffingEffect]]:
    reference = {q: dict(t.judged) for q, t in engine.evaluator(ref).labels.items()}
    rng = random.Random(seed)
    candidates = []
    for qid in sorted(reference):
        relevant = sorted(d for d, g in reference[qid].items() if g >= 2)
        for docid in sorted(d for d, g in reference[qid].items() if g < 1):
            if relevant:
                candidates.append((qid, docid, rng.choice(relevant)))
    rng.shuffle(candidates)
    triples = sorted(candidates[:limit])
    if not triples:
        raise UsageError(f"no topic of {ref!r} has both a non-relevant and a relevant passage")
    con = engine.db.cursor()
    queries = pools.topic_texts(con, [q for q, _, _ in triples])
    passages = pools.passage_texts(con, sorted({(q, d) for q, n, r in triples for d in (n, r)}))
    cases = [("none", "-"), *((k, p) for k in kinds for p in positions)]
    requests = []
    for kind, position in cases:
        for q, n, r in triples:
            worse = passages[(q, n)] if kind == "none" else stuff(passages[(q, n)], queries[q], kind, position)
            better = passages[(q, r)]
            requests.append(method.request((q, r, n), query=queries[q], passage_a=better, passage_b=worse))
            requests.append(method.request((q, n, r), query=queries[q], passage_a=worse, passage_b=better))
    answers: Answers = yield from ask(engine.db, backend, requests)
    size = len(triples)

    def prefers_relevant(case: int, i: int) -> bool | None:
        first, second = (_label(method, answers, 2 * (case * size + i) + k) for k in (0, 1))
        return None if first is None or second is None else (first == 1.0 and second == 2.0)

    before = [prefers_relevant(0, i) for i in range(size)]
    effects = []
    for index, (kind, position) in enumerate(cases[1:], start=1):
        flips = []
        for i in range(size):
            after = prefers_relevant(index, i)
            flips.append(None if before[i] is None or after is None else before[i] and not after)
        effects.append(effect(kind, position, flips))
    return effects
