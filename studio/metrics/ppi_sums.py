"""The estimator of `ppi.py` on the sums it reads, so that many audits are estimated at once.

Every figure `ppi.estimate_totals` gives for an audit (trial) is a function of a few sums per
stratum h and cross-fitting fold f over the audit's sampled units, z = n_h·x/(M_h·π) the scaled
contributions: the count, Σ z_a, Σ z_b, Σ z_a², Σ z_a·z_b and Σ z_b²; and of the stratum's
population mean and variance of b (known: the LLM labels every unit) and its pseudo-unit. The
estimator itself (λ fitted fold by fold, the residuals' variance, the t interval) is written here
once, on those sums (`StratumSums`, `intervals`); who forms the sums decides how cheaply: from
fixed contributions (`ppi.estimate_totals`) or from contributions that change from audit to audit
(the linearised nDCG@k, `ppi_ratio_trials`), without a (trials × units × runs) array.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

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


class Sums(NamedTuple):
    """A stratum's sums over the sampled units of some folds, per trial (and column): the count,
    Σ z_a, Σ c, Σ z_a², Σ z_a·c and Σ c² with c = z_b − b̄_h."""

    units: np.ndarray  # (T, 1)
    a: np.ndarray  # (T, K)
    c: np.ndarray
    aa: np.ndarray
    ac: np.ndarray
    cc: np.ndarray


class FoldSums(NamedTuple):
    """A stratum's sums over each audit's sampled units, fold by fold (folds an audit does not
    have are empty: zero counts and sums)."""

    units: np.ndarray  # (T, F) the stratum's sampled units in each fold
    za: np.ndarray  # (T, F, K) Σ z_a
    zb: np.ndarray  # (T, F, K) Σ z_b
    zaa: np.ndarray  # (T, F, K) Σ z_a²
    zab: np.ndarray  # (T, F, K) Σ z_a·z_b
    zbb: np.ndarray  # (T, F, K) Σ z_b²


class LlmPopulation(NamedTuple):
    """What the LLM's labels say of a stratum's whole population, (K,) or (T, K) per audit."""

    b_mean: np.ndarray  # the population mean of b
    b_spread: np.ndarray  # its population variance S²_bb (ddof 1)
    pseudo_square: np.ndarray | None  # (T, K) one pseudo-unit's square per unit of λ (None: no pseudo-unit)


@dataclass(frozen=True)
class StratumSums:
    """One stratum of T audits: its size, each audit's n_h, the sums and the LLM's population figures."""

    size: int  # M_h
    drawn: np.ndarray  # (T,) n_h
    folds: FoldSums
    llm: LlmPopulation

    def sums(self, keep: np.ndarray) -> Sums:
        """The sums over the folds `keep` (F,) marks."""
        folds, b_mean = self.folds, self.llm.b_mean
        cnt = folds.units[:, keep].sum(axis=1)[:, None]
        sa, zb = folds.za[:, keep].sum(axis=1), folds.zb[:, keep].sum(axis=1)
        sb = zb - cnt * b_mean
        saa = folds.zaa[:, keep].sum(axis=1)
        sab = folds.zab[:, keep].sum(axis=1) - b_mean * sa
        sbb = folds.zbb[:, keep].sum(axis=1) - 2 * b_mean * zb + cnt * b_mean**2
        return Sums(cnt, sa, sb, saa, sab, sbb)

    def residual_sums(self, parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
        """Σ ψ and Σ ψ² over the stratum's sample, ψ = z_a − λ c with each part's own λ (T,)."""
        total = np.zeros((self.drawn.shape[0], self.folds.za.shape[2]))
        squares = np.zeros_like(total)
        for keep, lam in parts:
            found = self.sums(keep)
            lam_col = lam[:, None]
            total += found.a - lam_col * found.c
            squares += found.aa - 2 * lam_col * found.ac + lam_col**2 * found.cc
        return total, squares


def fold_count(drawn: np.ndarray) -> np.ndarray:
    """Cross-fitting folds for samples of `drawn` units: FOLDS, or one per unit below that."""
    result: np.ndarray = np.minimum(FOLDS, np.maximum(drawn, 1)).astype(np.int64)
    return result


def dealt_folds(trial: np.ndarray, folds: np.ndarray) -> np.ndarray:
    """The fold of each sampled unit, the sample's units (`trial` (E,) sorted, units in index order
    within a trial) dealt round-robin over their trial's `folds` (T,)."""
    if trial.size == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, trial[1:] != trial[:-1]])
    lengths = np.diff(np.r_[starts, trial.size])
    position = np.arange(trial.size) - np.repeat(starts, lengths)
    result: np.ndarray = np.mod(position, folds[trial])
    return result


def intervals(layers: list[StratumSums], fold_sizes: np.ndarray, kind: str, level: float) -> Intervals:
    """The estimator's intervals from the strata's sums: `fold_sizes` (T, F) the sampled units in
    each fold (all strata), `kind` one of `ppi.ESTIMATORS` (folds beyond the first only for
    `cross-fit`); see `ppi.estimate_totals`."""
    trials, folds = fold_sizes.shape
    n = fold_sizes.sum(axis=1)
    every = np.ones(folds, dtype=bool)
    if kind == "cross-fit":
        index = np.arange(folds)
        lam_of_fold = np.stack(
            [_fitted_lambda(layers, index != f) for f in range(folds)], axis=1
        )  # (T, F): each fold's λ from the other folds
        lam_of_fold[n < MIN_CROSS_FIT_UNITS] = 0.0
        parts = [(index == f, lam_of_fold[:, f]) for f in range(folds)]
        reported = sum(lam * fold_sizes[:, f] for f, (_, lam) in enumerate(parts)) / np.maximum(n, 1)
    else:
        lam = {"gold": np.zeros(trials), "ppi": np.ones(trials)}.get(kind)
        if lam is None:
            lam = _fitted_lambda(layers, every)
        parts, reported = [(every, lam)], lam
    columns = layers[0].folds.za.shape[2] if layers else 0
    estimate = np.zeros((trials, columns))
    variance = np.zeros_like(estimate)
    with np.errstate(invalid="ignore", divide="ignore"):
        for layer in layers:
            total, squares = layer.residual_sums(parts)
            count = layer.drawn[:, None]
            mean = total / count
            spread = np.maximum(squares - count * mean**2, 0.0)
            if layer.llm.pseudo_square is not None:
                spread = spread + reported[:, None] ** 2 * layer.llm.pseudo_square
            spread = spread / (count - 1)
            fpc = 1.0 - count / layer.size
            estimate += layer.size * mean
            variance += np.where(fpc > 0, layer.size**2 * fpc * spread / count, 0.0)
        se = np.sqrt(variance)
        # A fitted λ̂ costs a degree of freedom; cross-fit folds that all chose λ = 0 are the gold
        # sample alone, and keep its degrees of freedom (and so its width exactly).
        fitted = np.ones(trials) if kind == "ppi++" else (reported > 0) if kind == "cross-fit" else np.zeros(trials)
        df = n - len(layers) - fitted
        q = np.where(df >= 1, t_quantile(0.5 + level / 2, np.maximum(df, 1)), np.nan)[:, None]
    half = q * se
    lam_out = np.broadcast_to(reported[:, None], estimate.shape).copy()
    return Intervals(estimate, estimate - half, estimate + half, se, lam_out, df.astype(np.float64))


def _fitted_lambda(layers: list[StratumSums], keep: np.ndarray) -> np.ndarray:
    """λ̂ = Σ_h c_h Σ_k Ŝ_ab / Σ_h c_h Σ_k S_bb over the sampled units of the folds `keep`, clipped
    to [0, 1] (c_h = M_h²(1 − f_h)/n_h, the stratum's weight in the variance); 0 where fewer than
    two units of a stratum inform it (with nothing known, the gold sample alone cannot be hurt). The
    pseudo-unit is left out of the fit: it widens the interval and never moves λ or the estimate."""
    trials = layers[0].drawn.shape[0] if layers else 0
    numerator = np.zeros(trials)
    denominator = np.zeros(trials)
    for layer in layers:
        found = layer.sums(keep)
        cnt, n_h = found.units, layer.drawn
        with np.errstate(invalid="ignore", divide="ignore"):
            weight = np.where(n_h > 0, layer.size**2 * np.maximum(1 - n_h / layer.size, 0.0) / np.maximum(n_h, 1), 0.0)
            covariance = np.where(cnt >= 2, (found.ac - found.a * found.c / cnt) / (cnt - 1), 0.0).sum(axis=1)
        numerator += weight * covariance
        denominator += weight * layer.llm.b_spread.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        lam = np.where(denominator > 1e-300, numerator / denominator, 0.0)
    return np.clip(lam, 0.0, 1.0)


def t_quantile(p: float, df: np.ndarray) -> np.ndarray:
    """Student's t quantile (scipy's t.ppf). scipy is imported here, when an interval is asked for:
    at module level it would add most of a second to every start of the studio."""
    from scipy.special import stdtrit

    return np.asarray(stdtrit(df, p), dtype=np.float64)
