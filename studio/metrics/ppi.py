"""Prediction-powered estimates of a leaderboard from a partial human audit.

Setting. A finite population U of M units (topics, or judged (topic, document) pairs) holds an
LLM label on every unit; a sample S ⊂ U of n units also holds a human (gold) label. A run's
measure under full human judging of U is a total θ = Σ_U a_i, where a_i is unit i's
contribution under gold labels (for a topic mean: a_i = y_i / N, y_i the topic's value; for
P@k over pairs: a_i = [i in the run's top k] · [gold grade ≥ rel] / (N·k)). The same unit
under LLM labels contributes b_i, and B = Σ_U b_i (the LLM-only value) is known exactly.

Estimator (PPI, Angelopoulos et al. 2023, in its finite-population form):

    θ̂ = B + Σ_S (a_i − b_i) / π_i,

π_i the unit's inclusion probability. Σ_S e_i/π_i is the Horvitz–Thompson estimator of the
rectifier's total Σ_U e_i, so θ̂ is unbiased for θ under any design with those π_i.

Variance. B is not random: the LLM labels every unit of U, and the target is U's own value
(these topics and pools, not a super-population of topics they were drawn from). The
infinite-population PPI's term Var(f)/N — the LLM mean's variability over the draw of N
topics — is therefore zero here; the only randomness is which n units are gold. Under simple
random sampling without replacement (π_i = n/M), θ̂ = B + M·ē_S and

    Var(θ̂) = M² (1 − n/M) S²_e / n,      S²_e = Σ_U (e_i − ē_U)² / (M − 1),

the textbook variance of an expanded sample mean with the finite-population correction.
Under SRSWOR E[s²_e] = S²_e for the sample variance s²_e (divisor n − 1), so the plug-in
variance is unbiased; the interval is θ̂ ± t_{n−1} · se. For unequal π_i the same formula is
applied to z_i = n·e_i/(M·π_i) (the with-replacement approximation, exact when π_i = n/M).

Gold only: θ̂_gold = Σ_S a_i/π_i with the same variance formula on a_i: the same target, the
same correction, no LLM.

Power tuning (PPI++, Angelopoulos, Duchi & Zrnic 2023): θ̂_λ = λB + Σ_S (a_i − λ b_i)/π_i is
unbiased for every fixed λ, with variance ∝ S²_{a−λb}, least at λ* = S_ab / S_bb (the
regression estimator's slope). S_bb is known exactly (the LLM labels every unit); S_ab must come
from the gold sample. One λ serves every column (run), the one that minimises the summed
variance, λ* = Σ_k S_ab,k / Σ_k S_bb,k (ppi_py's "overall" mode): a dozen runs share their
evidence instead of each run's slope resting on a handful of units. λ is clipped to [0, 1]: 0
is the gold sample alone, 1 plain PPI.

Estimators (`estimator=`):

* `gold`: λ = 0, the gold sample alone.
* `ppi`: λ = 1, plain PPI.
* `ppi++`: λ̂ fitted on the whole sample. Its plug-in variance ignores λ̂'s own noise and the
  fit's optimism on the very units it is judged on: it under-covers with a small sample.
* `cross-fit` (the studio's default): the sample is split into F folds (units in index order,
  dealt round-robin, so the split is a function of the sample alone); each fold's units are
  rectified with the λ̂ fitted on the other folds: ψ_i = z_a,i − λ_{−f(i)} (z_b,i − b̄_h) is an
  out-of-sample residual, and the variance, the sample variance of ψ (below), is not optimistic. A
  judge that does not help gets λ̂ ≈ 0: never much wider than the gold sample alone, exactly as
  wide when every fold's λ̂ is 0. Below MIN_CROSS_FIT_UNITS gold units: the gold sample alone.

Strata and design (`strata=`, `pi=`). Units may fall into strata h (e.g. the pairs an LLM set
labels and those it lacks, which get no prediction, b = 0), each sampled on its own: with n_h of
M_h units drawn, z = n_h·value/(M_h·π_i) and

    θ̂ = Σ_h M_h · mean_{S_h} ψ,      Var(θ̂) = Σ_h M_h² (1 − n_h/M_h) s²_{ψ,h} / n_h,

a stratum drawn whole (n_h = M_h) adding nothing. The interval is θ̂ ± t_df · se with df = n − H
(n − H − 1 when λ is fitted: `ppi++`, and `cross-fit` unless every fold's λ is 0). Per-unit
inclusion probabilities π_i enter through z (Horvitz–Thompson); with them unequal the variance is
the with-replacement approximation within each stratum.

One pseudo-unit (`pseudo=`). A sample from a rectifier with a rare heavy tail (a few pairs a good
judge gets wrong, a few topics where the LLM misses what people found) often holds none of it, and
its spread is small exactly when its mean is off. Each stratum's sum of squares gets one
pseudo-unit of residual λ·δ, δ known from the LLM labels (`pseudo_square`), as Agresti
and Coull add pseudo-counts; estimate, λ and df do not move, and at λ = 0 nothing changes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from studio.metrics import ppi_sums
from studio.metrics.ppi_sums import FOLDS as FOLDS
from studio.metrics.ppi_sums import MIN_CROSS_FIT_UNITS as MIN_CROSS_FIT_UNITS
from studio.metrics.ppi_sums import FoldSums, LlmPopulation, StratumSums, dealt_folds, fold_count
from studio.metrics.ppi_sums import Intervals as Intervals
from studio.metrics.ppi_sums import t_quantile as t_quantile
from studio.metrics.sampling import proportional_counts

ESTIMATORS = ("cross-fit", "ppi", "ppi++", "gold")
DEFAULT_ESTIMATOR = "cross-fit"
PSEUDO_PAIR = "pair"  # one pseudo-disagreement: a unit is one pair with one grade
PSEUDO_TOPIC = "topic"  # one pseudo-topic: a unit is a topic's value of a run
PSEUDO_UNITS = (PSEUDO_PAIR, PSEUDO_TOPIC)


def estimate_totals(
    sampled: np.ndarray,
    a: np.ndarray,
    b: np.ndarray | None,
    pi: np.ndarray,
    *,
    level: float = 0.95,
    tuned: bool = False,
    estimator: str | None = None,
    strata: np.ndarray | None = None,
    pseudo: str | None = None,
) -> Intervals:
    """θ̂ = Σ_h M_h mean_{S_h}(z_a − λ(z_b − b̄_h)) for each row of `sampled` (trials × M, 0/1) and
    each column of `a` and `b` (M × K; `b` None: gold only). `estimator` is one of ESTIMATORS
    (None: `ppi++` when `tuned`, else `ppi`); `strata` (M,) integer labels, None: one stratum.
    `pseudo`: PSEUDO_PAIR or PSEUDO_TOPIC adds one pseudo-unit of the design's kind to each
    stratum's spread (see `pseudo_square`); None: the plain sample variance.
    Values of `a` outside the sample are never read as long as they are finite (set them to 0)."""
    kind = estimator or ("ppi++" if tuned else "ppi")
    if kind not in ESTIMATORS:
        raise ValueError(f"unknown estimator {kind!r} (known: {', '.join(ESTIMATORS)})")
    if pseudo is not None and pseudo not in PSEUDO_UNITS:
        raise ValueError(f"unknown pseudo-unit {pseudo!r} (known: {', '.join(PSEUDO_UNITS)})")
    mask = np.atleast_2d(np.asarray(sampled, dtype=np.float64))
    if b is None:
        kind, b = "gold", np.zeros_like(a)
    labels = np.zeros(mask.shape[1], dtype=np.int64) if strata is None else np.asarray(strata)
    n = mask.sum(axis=1)  # (T,)
    folds = int(fold_count(n.min())) if kind == "cross-fit" else 1
    trial, unit = np.nonzero(mask)
    fold = dealt_folds(trial, np.full(mask.shape[0], folds))
    layers = [_stratum_sums(mask, a, b, pi, labels == h, (trial, unit, fold), folds, pseudo) for h in np.unique(labels)]
    fold_sizes = np.bincount(trial * folds + fold, minlength=mask.shape[0] * folds).reshape(-1, folds)
    return ppi_sums.intervals(layers, fold_sizes.astype(np.float64), kind, level)


def _stratum_sums(
    mask: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    pi: np.ndarray,
    inside: np.ndarray,
    sample: tuple[np.ndarray, np.ndarray, np.ndarray],
    folds: int,
    pseudo: str | None,
) -> StratumSums:
    """One stratum's sums over every trial's sample, fold by fold: `sample` the sampled units'
    (trial, unit, fold), each unit scaled by z = n_h/(M_h π)."""
    from scipy.sparse import csr_matrix  # with scipy, as `t_quantile` imports it: not at start-up

    trials = mask.shape[0]
    size = int(inside.sum())
    count = mask[:, inside].sum(axis=1)
    local = np.cumsum(inside) - 1  # a unit's index within the stratum
    trial, unit, fold = (part[inside[sample[1]]] for part in sample)
    scale = count[trial] / (size * pi[unit])
    rows, columns, shape = trial * folds + fold, local[unit], (trials * folds, size)
    weights = csr_matrix((scale, (rows, columns)), shape=shape)
    squared = csr_matrix((scale * scale, (rows, columns)), shape=shape)
    a_h, b_h = a[inside], b[inside]

    def per_fold(matrix: csr_matrix, values: np.ndarray) -> np.ndarray:
        result: np.ndarray = np.asarray(matrix @ values).reshape(trials, folds, a.shape[1])
        return result

    sums = FoldSums(
        units=np.bincount(rows, minlength=trials * folds).reshape(trials, folds).astype(np.float64),
        za=per_fold(weights, a_h),
        zb=per_fold(weights, b_h),
        zaa=per_fold(squared, a_h * a_h),
        zab=per_fold(squared, a_h * b_h),
        zbb=per_fold(squared, b_h * b_h),
    )
    llm = LlmPopulation(
        b_mean=b_h.mean(axis=0),
        b_spread=b_h.var(axis=0, ddof=1) if size > 1 else np.zeros(b.shape[1]),
        pseudo_square=None if pseudo is None else pseudo_square(pseudo, count, pi[inside], b_h),
    )
    return StratumSums(size, count, sums, llm)


def pseudo_square(kind: str, drawn: np.ndarray, pi: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(T, K) the square of one pseudo-unit's residual per unit of λ (the module's "One
    pseudo-unit"), from the LLM labels over a stratum's whole population (`pi` and `b` its units';
    `drawn` (T,) each trial's n_h, so that z_b = n_h·b/(M_h·π)). `"pair"`: a pair whose LLM label
    counts δ where its gold one counts 0 (a rectifier is 0 wherever they agree; with a κ 0.8 judge on
    TREC DL a quarter of 1,000-pair samples held 0–2 disagreements in a run's top 10 and covered
    0–0.84), δ² = Σ z_b⁴ / Σ z_b², the typical squared contribution of a pair weighted towards those
    that count. `"topic"`: a topic whose prediction λ·(z_b − b̄) is wholly wrong, δ² = S²_zb, the
    spread of the LLM's values over the stratum's topics."""
    size = b.shape[0]
    counts, trial_count = np.unique(drawn, return_inverse=True)  # the trials' n_h differ little, if at all
    scale = counts[:, None] / (size * pi[None, :])  # (U, M_h): z_b = scale·b
    with np.errstate(invalid="ignore", divide="ignore"):
        if kind == PSEUDO_TOPIC:
            if size < 2:
                return np.zeros((drawn.shape[0], b.shape[1]))
            total, squares = scale @ b, scale**2 @ b**2
            found = np.maximum(squares - total**2 / size, 0.0) / (size - 1)
        else:
            squares = scale**2 @ b**2
            found = np.where(squares > 0, (scale**4 @ b**4) / squares, 0.0)
    result: np.ndarray = found[trial_count.reshape(-1)]
    return result


def topic_units(llm: np.ndarray, gold: np.ndarray, counted: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Unit contributions (a, b) of a topic-mean measure: (topics × runs) per-topic values.

    A run's population is the topics `counted` marks (default: those its LLM value covers, as
    trec_eval averages over topics both run and labels have); outside it a topic contributes 0,
    keeping the estimator unbiased for the run's own mean. Gold values outside the sample may be
    NaN; an LLM value NaN inside the population (the LLM set lacks the topic) predicts nothing."""
    counted = np.isfinite(llm) if counted is None else counted
    topics = np.maximum(counted.sum(axis=0), 1)
    a = np.where(counted & np.isfinite(gold), gold, 0.0) / topics
    b = np.where(counted & np.isfinite(llm), llm, 0.0) / topics
    return a, b


def pair_units(
    in_top: np.ndarray, topic_counts: np.ndarray, cutoff: int, llm_relevant: np.ndarray, gold_relevant: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Unit contributions (a, b) of P@k over judged pairs: `in_top` (pairs × runs) says whether
    the pair's document is in the run's top k of its topic; `topic_counts` (runs,) the topics
    the run's mean is over; relevance vectors are (pairs,), gold 0 outside the sample."""
    weight = in_top / (np.maximum(topic_counts, 1) * cutoff)[None, :]
    return weight * gold_relevant[:, None], weight * llm_relevant[:, None]


def column_pairs(count: int) -> tuple[np.ndarray, np.ndarray]:
    """Every (i, j) with i < j."""
    i, j = np.triu_indices(count, k=1)
    return i, j


def differences(x: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Columns i minus columns j: the unit contributions of a difference of two runs."""
    return x[:, i] - x[:, j]


@dataclass(frozen=True)
class Coverage:
    """What repeated audits of one budget give, per run (columns) and in all."""

    coverage: np.ndarray  # (K,) share of trials whose interval held the truth
    width: np.ndarray  # (K,) mean interval width
    gold_coverage: np.ndarray
    gold_width: np.ndarray
    lam: float = float("nan")  # the mean weight of the LLM term over the trials

    def summary(self) -> dict[str, float]:
        """Over the runs whose figure is a number (NaN when none is)."""
        width, gold = _mean_of_numbers(self.width), _mean_of_numbers(self.gold_width)
        numbers = self.coverage[~np.isnan(self.coverage)]
        return {
            "coverage": _mean_of_numbers(self.coverage),
            "min_run_coverage": float(numbers.min()) if numbers.size else float("nan"),
            "width": width,
            "gold_coverage": _mean_of_numbers(self.gold_coverage),
            "gold_width": gold,
            "width_ratio": width / gold if gold > 0 else float("nan"),
            "mean_lambda": self.lam,
        }


def _mean_of_numbers(values: np.ndarray) -> float:
    """numpy's nanmean (the same sum, to the last digit), NaN over nothing without its warning."""
    missing = np.isnan(values)
    count = int((~missing).sum())
    return float(np.sum(np.where(missing, 0.0, values)) / count) if count else float("nan")


def draw_samples(units: int, budget: int, trials: int, seed: int, strata: np.ndarray | None = None) -> np.ndarray:
    """(trials × units) 0/1 masks of simple random samples without replacement of `budget` units;
    with `strata`, a sample within each stratum, the budget shared in proportion to their sizes
    (at least two units in each, when the budget allows: one would leave the stratum's variance,
    and so the interval, no number)."""
    rng = np.random.default_rng(seed)
    labels = np.zeros(units, dtype=np.int64) if strata is None else np.asarray(strata)
    names = np.unique(labels)
    sizes = [int((labels == h).sum()) for h in names]
    counts = proportional_counts(sizes, budget) if len(names) > 1 else [budget]
    mask = np.zeros((trials, units))
    for h, drawn in zip(names, counts, strict=True):
        where = np.flatnonzero(labels == h)
        chosen = np.argsort(rng.random((trials, len(where))), axis=1)[:, :drawn]
        np.put_along_axis(mask, where[chosen], 1.0, axis=1)
    return mask


def inclusion(mask: np.ndarray, strata: np.ndarray | None = None) -> np.ndarray:
    """Each unit's inclusion probability under the (stratified) simple random design of `mask`'s first row."""
    labels = np.zeros(mask.shape[1], dtype=np.int64) if strata is None else np.asarray(strata)
    pi = np.zeros(mask.shape[1])
    for h in np.unique(labels):
        inside = labels == h
        pi[inside] = mask[0, inside].sum() / inside.sum()
    return pi


def coverage(found: Intervals, gold: Intervals, truth: np.ndarray) -> Coverage:
    """How often each interval held `truth` (K,), and the mean widths."""

    def held(intervals: Intervals) -> np.ndarray:
        # A sample that is the whole population gives a zero-width interval at the truth: a
        # tolerance for rounding keeps it counted as covering.
        slack = 1e-12 * (1 + np.abs(truth))
        inside = (intervals.low - slack <= truth) & (truth <= intervals.high + slack)
        result: np.ndarray = inside.mean(axis=0)
        return result

    return Coverage(held(found), (found.high - found.low).mean(axis=0), held(gold), (gold.high - gold.low).mean(axis=0))


def simulate(
    a: np.ndarray,
    b: np.ndarray,
    *,
    budget: int,
    trials: int,
    seed: int = 0,
    level: float = 0.95,
    tuned: bool = False,
    estimator: str | None = None,
    strata: np.ndarray | None = None,
    pseudo: str | None = None,
) -> Coverage:
    """Coverage of θ = Σ a (the full-gold value) by the estimator's and gold-only intervals over
    `trials` (stratified) simple random audits of `budget` units; `a` holds every unit's gold
    contribution."""
    units = a.shape[0]
    if not 2 <= budget <= units:
        raise ValueError(f"the budget must lie between 2 and {units} units")
    masks = draw_samples(units, budget, trials, seed, strata)
    pi = inclusion(masks, strata)
    found = estimate_totals(
        masks, a, b, pi, level=level, tuned=tuned, estimator=estimator, strata=strata, pseudo=pseudo
    )
    gold = estimate_totals(masks, a, None, pi, level=level, strata=strata)
    result = coverage(found, gold, a.sum(axis=0)[None, :])
    return Coverage(result.coverage, result.width, result.gold_coverage, result.gold_width, float(found.lam.mean()))
