"""The two designs whose inclusion probabilities an LLM-only signal sets (`studio/metrics/
unequal_sampling.py` has the reasoning): `pairs-uncertainty`, pairs drawn with π following the
LLM label's predicted error, and `topics-neyman`, whole topics stratified by the topic's count of
LLM-relevant pairs with Neyman's allocation. Both are known before any gold label is seen, so the
Horvitz–Thompson estimate over the stored π stays unbiased; the simulation draws them the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from studio.domain.audit_results import TopicStratumDraw, UncertaintyDraw
from studio.domain.errors import UsageError
from studio.metrics import unequal_sampling as us
from studio.metrics.sampling import proportional_counts
from studio.services.audit.pool import PoolPair, pilot_differences
from studio.store import Connection
from studio.store import audits as audit_store
from studio.store import ensembles as ensemble_store
from studio.store.distributions import label_distributions
from studio.store.labels import label_set_id

# A drawn unit: (qid, docid or None for a whole topic, stratum, inclusion probability).
DrawnUnit = tuple[str, str | None, str | None, float]

PAIRS_UNCERTAINTY, TOPICS_NEYMAN = "pairs-uncertainty", "topics-neyman"


@dataclass(frozen=True)
class PairScores:
    """Each pool pair's predicted error (the order of `pool_pairs`) and where it came from."""

    scores: np.ndarray
    source: str


def pair_error_scores(con: Connection, label_set: str, pairs: Sequence[PoolPair], pilot: str | None) -> PairScores:
    """The predicted |gold − LLM| of every pair, from the best signal the label set has: its label
    distributions (the root expected squared error under them); else its labels' spread (the
    standard deviation of an ensemble's members, or of a judge's repeated samples, behind each
    label); else a pilot's root mean squared error at the pair's LLM grade (a calibration residual:
    a grade the pilot saw fewer than twice takes the pilot's overall one). A pair the signal does
    not reach takes the others' mean."""
    known = label_distributions(con, label_set)
    if known:
        found = [
            us.predicted_error(known[(p.qid, p.docid)], p.grade) if (p.qid, p.docid) in known else None for p in pairs
        ]
        return _filled(found, "label distributions")
    set_id = label_set_id(con, label_set)
    spreads = {
        key: row.std
        for key, row in (ensemble_store.spreads(con, set_id) if set_id is not None else {}).items()
        if row.judges >= 2
    }
    if spreads:
        return _filled([spreads.get((p.qid, p.docid)) for p in pairs], "label spread")
    name, differences = pilot_differences(con, label_set, pilot)
    if len(differences) < 2:
        raise UsageError(
            f"{PAIRS_UNCERTAINTY} needs label distributions of {label_set!r} (a judge run that keeps them, or "
            "`studio import probs`), the spread behind its labels (an ensemble, or a judge run with --samples) "
            "or a pilot that grades some of its pool (--pilot, or an earlier audit)"
        )
    return PairScores(
        calibration_residuals([p.grade for p in pairs], differences, pairs), f"calibration residual ({name})"
    )


def _filled(found: Sequence[float | None], source: str) -> PairScores:
    """Scores with a gap where the signal does not reach a pair, filled with the others' mean."""
    scores = np.array([np.nan if value is None else value for value in found], dtype=np.float64)
    fill = float(np.nanmean(scores)) if np.isfinite(scores).any() else 0.0
    covered = int(np.isfinite(scores).sum())
    return PairScores(np.where(np.isfinite(scores), scores, fill), f"{source} ({covered} pairs)")


def calibration_residuals(
    grades: Sequence[float], differences: dict[tuple[str, str], float], pairs: Sequence[PoolPair]
) -> np.ndarray:
    """sqrt(mean (gold − LLM)²) over the pilot's pairs of each LLM grade, per pair of the pool."""
    by_grade: dict[float, list[float]] = {}
    for pair in pairs:
        found = differences.get((pair.qid, pair.docid))
        if found is not None:
            by_grade.setdefault(pair.grade, []).append(found)
    overall = float(np.sqrt(np.mean(np.square(list(differences.values())))))
    rms = {g: float(np.sqrt(np.mean(np.square(v)))) for g, v in by_grade.items() if len(v) >= 2}
    return np.array([rms.get(g, overall) for g in grades])


def relevant_level(grades: Sequence[float]) -> float:
    """The grade an LLM-relevant pair has at least: 2 on a graded scale (TREC DL's level), 1 on a binary one."""
    return 2.0 if grades and max(grades) >= 2 else 1.0


@dataclass(frozen=True)
class TopicStrata:
    """Topics (sorted) with their stratum by LLM-relevant count, the strata's names and spreads."""

    topics: list[str]
    labels: np.ndarray
    names: list[str]
    spreads: list[float]
    spread_source: str

    def sizes(self) -> list[int]:
        return [int((self.labels == h).sum()) for h in range(len(self.names))]


def topic_strata(con: Connection, label_set: str, pilot: str | None = None, budget: int | None = None) -> TopicStrata:
    """The label set's topics in strata by their count of LLM-relevant pairs, with each stratum's S_h:
    the spread of the per-topic mean gold − LLM over a pilot's topics in the stratum, or, without a
    pilot, of the per-topic mean LLM grade (an LLM-only proxy: topics the LLM sees alike). A
    `budget` too small for two topics in each of TOPIC_STRATA strata makes fewer strata."""
    rows = audit_store.pool(con, label_set)
    if not rows:
        raise UsageError(f"label set {label_set!r} labels no pair (see `studio list qrels`)")
    level = relevant_level([g for _, _, g in rows])
    topics = sorted({q for q, _, _ in rows})
    grades: dict[str, list[float]] = {q: [] for q in topics}
    for qid, _, grade in rows:
        grades[qid].append(grade)
    counts = [sum(g >= level for g in grades[q]) for q in topics]
    wanted = us.TOPIC_STRATA if budget is None else max(1, min(us.TOPIC_STRATA, budget // us.MIN_PER_STRATUM))
    labels, ranges = us.quantile_strata(counts, wanted)
    names = [f"LLM-relevant {r}" for r in ranges]
    name, differences = pilot_differences(con, label_set, pilot)
    per_topic: dict[str, list[float]] = {}
    for (qid, _), value in differences.items():
        per_topic.setdefault(qid, []).append(value)
    pilot_values = {q: float(np.mean(v)) for q, v in per_topic.items()}
    proxy = {q: float(np.mean(grades[q])) for q in topics}
    source = f"pilot ({name}, {len(pilot_values)} topics)" if len(pilot_values) >= 2 else "LLM-only proxy"
    values = pilot_values if len(pilot_values) >= 2 else proxy
    overall = float(np.std(list(values.values()), ddof=1)) if len(values) >= 2 else 0.0
    spreads = []
    for h in range(len(names)):
        inside = [values[q] for q, lab in zip(topics, labels, strict=True) if lab == h and q in values]
        spreads.append(float(np.std(inside, ddof=1)) if len(inside) >= 2 else overall)
    return TopicStrata(topics, labels, names, spreads, source)


def draw_topics_neyman(
    strata: TopicStrata, budget: int, rng: np.random.Generator
) -> tuple[list[DrawnUnit], list[TopicStratumDraw]]:
    """Whole topics, n_h per stratum by Neyman's allocation: the units (π = n_h/N_h) and a row per stratum."""
    sizes = strata.sizes()
    counts = us.neyman_counts(sizes, strata.spreads, budget)
    mask = us.stratified_draw(strata.labels, counts, 1, rng)[0]
    units: list[DrawnUnit] = [
        (q, None, strata.names[int(h)], counts[int(h)] / sizes[int(h)])
        for q, h, drawn in zip(strata.topics, strata.labels, mask, strict=True)
        if drawn
    ]
    rows = [
        TopicStratumDraw(stratum=n, topics=size, sd=s, drawn=c, inclusion=c / size)
        for n, size, s, c in zip(strata.names, sizes, strata.spreads, counts, strict=True)
    ]
    return units, rows


def draw_pairs_uncertainty(
    pairs: Sequence[PoolPair], scores: PairScores, budget: int, rng: np.random.Generator
) -> tuple[list[DrawnUnit], UncertaintyDraw]:
    """Pairs by randomised systematic sampling with π from the predicted errors: the units and a
    summary of the probabilities."""
    pi = us.mixed_probabilities(scores.scores, budget)
    mask = us.systematic_draw(pi, 1, rng)[0]
    units: list[DrawnUnit] = [(p.qid, p.docid, None, float(pi[i])) for i, p in enumerate(pairs) if mask[i]]
    summary: UncertaintyDraw = {
        "from": scores.source,
        "min_inclusion": float(pi.min()),
        "max_inclusion": float(pi.max()),
        "uniform_inclusion": budget / len(pairs),
        "drawn_for_sure": int((pi >= 1.0).sum()),
    }
    return units, summary


@dataclass(frozen=True)
class Draws:
    """Simulated audits of one design: (trials × units) masks, each unit's π, the estimator's strata."""

    masks: np.ndarray
    pi: np.ndarray
    strata: np.ndarray
    note: str


def simulated_topic_draws(
    con: Connection,
    qrels: str,
    keys: Sequence[str],
    own: np.ndarray,
    budget: int,
    trials: int,
    rng: np.random.Generator,
    pilot: str | None = None,
) -> Draws:
    """`topics-neyman` audits of the topics `keys` (own strata: 0, the LLM set labels the topic; 1,
    it does not, a stratum of its own with the largest spread, whose two topics the LLM's strata
    leave room for)."""
    lacked = int((np.asarray(own) != 0).sum())
    strata = topic_strata(con, qrels, pilot, budget - min(us.MIN_PER_STRATUM, lacked))
    label_of = dict(zip(strata.topics, strata.labels.tolist(), strict=True))
    lacking = len(strata.names)
    crossed = np.array([label_of.get(k, lacking) if o == 0 else lacking for k, o in zip(keys, own, strict=True)])
    used, labels = np.unique(crossed, return_inverse=True)
    spreads_by = [*strata.spreads, max(strata.spreads, default=0.0)]
    sizes = [int((labels == h).sum()) for h in range(len(used))]
    counts = us.neyman_counts(sizes, [spreads_by[int(u)] for u in used], budget)
    masks = us.stratified_draw(labels, counts, trials, rng)
    pi = np.array([counts[h] / sizes[h] for h in labels])
    allocation = ", ".join(
        f"{strata.names[int(u)] if u < lacking else 'not in qrels'}: {c}" for u, c in zip(used, counts, strict=True)
    )
    return Draws(masks, pi, labels.astype(np.int64), f"neyman from the {strata.spread_source} ({allocation})")


def simulated_pair_draws(
    con: Connection,
    qrels: str,
    keys: Sequence[tuple[str, str]],
    own: np.ndarray,
    budget: int,
    trials: int,
    rng: np.random.Generator,
    pilot: str | None = None,
) -> Draws:
    """`pairs-uncertainty` audits of the pairs `keys`: the budget shared between the pairs the LLM
    set labels (drawn with π from their predicted errors) and those it lacks (uniformly), in
    proportion to their sizes, as the uniform design's simulation shares it."""
    pool = [PoolPair(q, d, g) for q, d, g in audit_store.pool(con, qrels)]
    scores = pair_error_scores(con, qrels, pool, pilot)
    score_of = {(p.qid, p.docid): float(s) for p, s in zip(pool, scores.scores, strict=True)}
    labelled = np.flatnonzero(own == 0)
    lacking = np.flatnonzero(own != 0)
    shares = proportional_counts([len(labelled), len(lacking)], budget)
    pi = np.zeros(len(keys))
    masks = np.zeros((trials, len(keys)))
    pi[labelled] = us.mixed_probabilities(np.array([score_of.get(keys[int(i)], 0.0) for i in labelled]), shares[0])
    masks[:, labelled] = us.systematic_draw(pi[labelled], trials, rng)
    if len(lacking):
        pi[lacking] = shares[1] / len(lacking)
        masks[:, lacking] = us.stratified_draw(np.zeros(len(lacking), dtype=np.int64), [shares[1]], trials, rng)
    note = f"π from the {scores.source}, {pi[labelled].min():.4f}–{pi[labelled].max():.4f}"
    return Draws(masks, pi, (own != 0).astype(np.int64), note)
