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
pseudo-unit of residual λ·δ, δ known from the LLM labels (`ppi_strata.Stratum.pseudo_square`),
as Agresti and Coull add pseudo-counts; estimate, λ and df do not move, and at λ = 0 nothing
changes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from studio.metrics.ppi_strata import PSEUDO_PAIR as PSEUDO_PAIR
from studio.metrics.ppi_strata import PSEUDO_TOPIC as PSEUDO_TOPIC
from studio.metrics.ppi_strata import Stratum, Weights, fitted_lambda, folds, stratified_totals
from studio.metrics.sampling import allocate

ESTIMATORS = ("cross-fit", "ppi", "ppi++", "gold")
DEFAULT_ESTIMATOR = "cross-fit"
FOLDS = 10  # cross-fitting folds (fewer when the sample is smaller: leave-one-out)
# Below this many gold units cross-fitting is the gold sample alone: each fold's λ would rest on a
# handful of units (4-topic audits of TREC DL came out up to 1.34× as wide as gold-only).
MIN_CROSS_FIT_UNITS = 8


@dataclass(frozen=True)
class Intervals:
    """Estimates and two-sided intervals, (trials × columns); NaN where the sample is too small."""

    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    se: np.ndarray
    lam: np.ndarray  # the LLM term's weight, in [0, 1] (1: plain PPI, 0: gold only; cross-fit: the folds' mean)
    # (trials,) the t quantile's degrees of freedom: a p-value from estimate and se against t(df)
    # is below 1 − level exactly when the interval excludes 0.
    df: np.ndarray | None = None


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
    stratum's spread (see `ppi_strata.Stratum.pseudo_square`); None: the plain sample variance.
    Values of `a` outside the sample are never read as long as they are finite (set them to 0)."""
    kind = estimator or ("ppi++" if tuned else "ppi")
    if kind not in ESTIMATORS:
        raise ValueError(f"unknown estimator {kind!r} (known: {', '.join(ESTIMATORS)})")
    mask = np.atleast_2d(np.asarray(sampled, dtype=np.float64))
    if b is None:
        kind, b = "gold", np.zeros_like(a)
    labels = np.zeros(mask.shape[1], dtype=np.int64) if strata is None else np.asarray(strata)
    layers = [Stratum.of(mask, a, b, pi, labels == h) for h in np.unique(labels)]
    n = mask.sum(axis=1)  # (T,)
    weights = _weights(kind, layers, mask)
    estimate, variance = stratified_totals(layers, weights, pseudo, (mask.shape[0], a.shape[1]))
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(variance)
        # A fitted λ̂ costs a degree of freedom; cross-fit folds that all chose λ = 0 are the gold
        # sample alone, and keep its degrees of freedom (and so its width exactly).
        reported = weights.reported
        fitted = np.ones(len(n)) if kind == "ppi++" else (reported > 0) if kind == "cross-fit" else np.zeros(len(n))
        df = n - len(layers) - fitted
        q = np.where(df >= 1, t_quantile(0.5 + level / 2, np.maximum(df, 1)), np.nan)[:, None]
    half = q * se
    lam_out = np.broadcast_to(reported[:, None], estimate.shape).copy()
    return Intervals(estimate, estimate - half, estimate + half, se, lam_out, df.astype(np.float64))


def _weights(kind: str, layers: list[Stratum], mask: np.ndarray) -> Weights:
    """λ per trial for `kind`: fixed (gold 0, ppi 1), fitted on the whole sample (ppi++), or, for
    cross-fit, each fold's from the other folds."""
    n = mask.sum(axis=1)
    if kind == "cross-fit":
        fold_masks = folds(mask, int(min(FOLDS, max(n.min(), 1))))
        lam_of_fold = np.stack(
            [fitted_lambda(layers, 1.0 - fold, mask) for fold in fold_masks], axis=1
        )  # (T, F): each fold's λ from the other folds
        lam_of_fold[n < MIN_CROSS_FIT_UNITS] = 0.0
        parts = [(fold, lam_of_fold[:, f]) for f, fold in enumerate(fold_masks)]
        return Weights(parts, sum(lam * fold.sum(axis=1) for fold, lam in parts) / np.maximum(n, 1))
    lam = {"gold": np.zeros(len(n)), "ppi": np.ones(len(n))}.get(kind)
    if lam is None:
        lam = fitted_lambda(layers, np.ones_like(mask), mask)
    return Weights([(np.ones_like(mask), lam)], lam)


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
        width, gold = float(np.nanmean(self.width)), float(np.nanmean(self.gold_width))
        return {
            "coverage": float(np.nanmean(self.coverage)),
            "min_run_coverage": float(np.nanmin(self.coverage)),
            "width": width,
            "gold_coverage": float(np.nanmean(self.gold_coverage)),
            "gold_width": gold,
            "width_ratio": width / gold if gold > 0 else float("nan"),
            "mean_lambda": self.lam,
        }


def draw_samples(units: int, budget: int, trials: int, seed: int, strata: np.ndarray | None = None) -> np.ndarray:
    """(trials × units) 0/1 masks of simple random samples without replacement of `budget` units;
    with `strata`, a sample within each stratum, the budget shared in proportion to their sizes
    (at least one unit in each)."""
    rng = np.random.default_rng(seed)
    labels = np.zeros(units, dtype=np.int64) if strata is None else np.asarray(strata)
    names = np.unique(labels)
    sizes = [int((labels == h).sum()) for h in names]
    counts = allocate(sizes, [float(s) for s in sizes], budget) if len(names) > 1 else [budget]
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


def t_quantile(p: float, df: np.ndarray) -> np.ndarray:
    """Student's t quantile (scipy's t.ppf). scipy is imported here, when an interval is asked for:
    at module level it would add most of a second to every start of the studio."""
    from scipy.special import stdtrit

    return np.asarray(stdtrit(df, p), dtype=np.float64)
