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
regression estimator's slope). λ is estimated from the gold sample; the plug-in variance
ignores λ̂'s own noise, which is small for large n and not for a handful of units (t with
n − 2 degrees of freedom softens, but does not remove, the under-coverage).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Intervals:
    """Estimates and two-sided intervals, (trials × columns); NaN where the sample is too small."""

    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    se: np.ndarray
    lam: np.ndarray  # the LLM term's weight (1 without power tuning, 0 for gold only)


def estimate_totals(
    sampled: np.ndarray,
    a: np.ndarray,
    b: np.ndarray | None,
    pi: np.ndarray,
    *,
    level: float = 0.95,
    tuned: bool = False,
) -> Intervals:
    """θ̂ = λB + Σ_S (a − λb)/π for each row of `sampled` (trials × M, 0/1) and each column of
    `a` and `b` (M × K; `b` None: gold only). Values of `a` outside the sample are never read
    as long as they are finite (set them to 0)."""
    mask = np.atleast_2d(np.asarray(sampled, dtype=np.float64))
    units = mask.shape[1]
    n = mask.sum(axis=1)[:, None]  # (T, 1)
    scale = n / (units * pi[None, :])  # (T, M): z = scale · e turns the HT total into M·mean(z)
    x_sum, x_sq = _sums(mask, scale, a, a)
    if b is None:
        lam = np.zeros_like(x_sum)
        e_sum, e_sq = x_sum, x_sq
        known = np.zeros(a.shape[1])
    else:
        v_sum, v_sq = _sums(mask, scale, b, b)
        _, xv = _sums(mask, scale, a, b)
        known = b.sum(axis=0)
        if tuned:
            sxv = xv - x_sum * v_sum / n
            svv = v_sq - v_sum**2 / n
            lam = np.divide(sxv, svv, out=np.ones_like(sxv), where=svv > 1e-300)
        else:
            lam = np.ones_like(x_sum)
        e_sum = x_sum - lam * v_sum
        e_sq = x_sq - 2 * lam * xv + lam**2 * v_sq
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = e_sum / n
        variance = np.maximum(e_sq - n * mean**2, 0.0) / (n - 1)
        se = units * np.sqrt((1 - n / units) * variance / n)
        estimate = lam * known[None, :] + units * mean
        df = n - (2 if tuned and b is not None else 1)
        q = np.where(df >= 1, t_quantile(0.5 + level / 2, np.maximum(df, 1)), np.nan)
    half = q * se
    return Intervals(estimate, estimate - half, estimate + half, se, lam)


def _sums(mask: np.ndarray, scale: np.ndarray, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Σ_S z_x and Σ_S z_x·z_y per trial and column (z = scale · value), as matrix products."""
    first = (mask * scale) @ x
    second = (mask * scale**2) @ (x * y)
    return first, second


def topic_units(llm: np.ndarray, gold: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit contributions (a, b) of a topic-mean measure: (topics × runs) per-topic values.

    A run's population is the topics its LLM value covers (trec_eval averages over topics both
    the run and the labels have); outside it a topic contributes 0 to that run, which keeps the
    estimator unbiased for the run's own mean. Gold values outside the sample may be NaN."""
    counted = np.isfinite(llm)
    topics = np.maximum(counted.sum(axis=0), 1)
    a = np.where(counted & np.isfinite(gold), gold, 0.0) / topics
    b = np.where(counted, llm, 0.0) / topics
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

    def summary(self) -> dict[str, float]:
        width, gold = float(np.nanmean(self.width)), float(np.nanmean(self.gold_width))
        return {
            "coverage": float(np.nanmean(self.coverage)),
            "min_run_coverage": float(np.nanmin(self.coverage)),
            "width": width,
            "gold_coverage": float(np.nanmean(self.gold_coverage)),
            "gold_width": gold,
            "width_ratio": width / gold if gold > 0 else float("nan"),
        }


def draw_samples(units: int, budget: int, trials: int, seed: int) -> np.ndarray:
    """(trials × units) 0/1 masks of simple random samples without replacement of `budget` units."""
    rng = np.random.default_rng(seed)
    chosen = np.argsort(rng.random((trials, units)), axis=1)[:, :budget]
    mask = np.zeros((trials, units))
    np.put_along_axis(mask, chosen, 1.0, axis=1)
    return mask


def simulate(
    a: np.ndarray, b: np.ndarray, *, budget: int, trials: int, seed: int = 0, level: float = 0.95, tuned: bool = False
) -> Coverage:
    """Coverage of θ = Σ a (the full-gold value) by PPI and gold-only intervals over `trials`
    simple random audits of `budget` units; `a` holds the gold contribution of every unit."""
    units = a.shape[0]
    if not 2 <= budget <= units:
        raise ValueError(f"the budget must lie between 2 and {units} units")
    masks = draw_samples(units, budget, trials, seed)
    pi = np.full(units, budget / units)
    truth = a.sum(axis=0)[None, :]
    ppi = estimate_totals(masks, a, b, pi, level=level, tuned=tuned)
    gold = estimate_totals(masks, a, None, pi, level=level)

    def held(found: Intervals) -> np.ndarray:
        # A unit sample that is the whole population gives a zero-width interval at the truth:
        # a tolerance for rounding keeps it counted as covering.
        slack = 1e-12 * (1 + np.abs(truth))
        result: np.ndarray = ((found.low - slack <= truth) & (truth <= found.high + slack)).mean(axis=0)
        return result

    return Coverage(held(ppi), (ppi.high - ppi.low).mean(axis=0), held(gold), (gold.high - gold.low).mean(axis=0))


def t_quantile(p: float, df: np.ndarray) -> np.ndarray:
    """Student's t quantile (scipy's t.ppf). scipy is imported here, when an interval is asked for:
    at module level it would add most of a second to every start of the studio."""
    from scipy.special import stdtrit

    return np.asarray(stdtrit(df, p), dtype=np.float64)
