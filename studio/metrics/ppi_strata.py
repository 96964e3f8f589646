"""The strata of a prediction-powered estimate (`ppi`): each stratum's sums of the sample's
scaled contributions, its pseudo-unit, the λ fitted on them, and the stratified total with its
design variance. `ppi`'s module docstring holds the estimator these pieces make up."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PSEUDO_PAIR = "pair"  # one pseudo-disagreement: a unit is one pair with one grade
PSEUDO_TOPIC = "topic"  # one pseudo-topic: a unit is a topic's value of a run


@dataclass(frozen=True)
class Stratum:
    """One stratum's units: the sample's scaled values z = n_h·x/(M_h·π), and b's stratum mean."""

    inside: np.ndarray  # (M,) bool
    size: int  # M_h
    count: np.ndarray  # (T,) n_h
    sampled: np.ndarray  # (T, M_h) the sample's 0/1 mask on the stratum's units
    scale: np.ndarray  # (T, M_h) n_h / (M_h π) on the stratum's units
    weights: np.ndarray  # (T, M_h): mask · scale on the stratum's units
    a: np.ndarray  # (M_h, K)
    b: np.ndarray
    b_mean: np.ndarray  # (K,) the stratum's population mean of b
    b_spread: np.ndarray  # (K,) its population variance S²_bb (ddof 1)

    @classmethod
    def of(cls, mask: np.ndarray, a: np.ndarray, b: np.ndarray, pi: np.ndarray, inside: np.ndarray) -> Stratum:
        size = int(inside.sum())
        local = mask[:, inside]
        count = local.sum(axis=1)
        scale = count[:, None] / (size * pi[None, inside])
        b_h = b[inside]
        spread = b_h.var(axis=0, ddof=1) if size > 1 else np.zeros(b.shape[1])
        return cls(inside, size, count, local, scale, local * scale, a[inside], b_h, b_h.mean(axis=0), spread)

    def pseudo_square(self, kind: str) -> np.ndarray:
        """(T, K) the square of one pseudo-unit's residual per unit of λ (the module's "One
        pseudo-unit"), from the LLM labels over the stratum's whole population. `"pair"`: a pair
        whose LLM label counts δ where its gold one counts 0 (a rectifier is 0 wherever they agree;
        with a κ 0.8 judge on TREC DL a quarter of 1,000-pair samples held 0–2 disagreements in a
        run's top 10 and covered 0–0.84), δ² = Σ z_b⁴ / Σ z_b², the typical squared contribution of a
        pair weighted towards those that count. `"topic"`: a topic whose prediction λ·(z_b − b̄) is
        wholly wrong, δ² = S²_zb, the spread of the LLM's values over the stratum's topics."""
        with np.errstate(invalid="ignore", divide="ignore"):
            if kind == PSEUDO_TOPIC:
                if self.size < 2:
                    return np.zeros((self.scale.shape[0], self.b.shape[1]))
                total, squares = self.scale @ self.b, self.scale**2 @ self.b**2
                return np.maximum(squares - total**2 / self.size, 0.0) / (self.size - 1)
            if kind != PSEUDO_PAIR:
                raise ValueError(f"unknown pseudo-unit {kind!r} (known: {PSEUDO_PAIR}, {PSEUDO_TOPIC})")
            squares = self.scale**2 @ self.b**2
            result: np.ndarray = np.where(squares > 0, (self.scale**4 @ self.b**4) / squares, 0.0)
        return result

    def sums(self, keep: np.ndarray) -> tuple[np.ndarray, ...]:
        """Over the sampled units with `keep` (T × M) set: count, Σ z_a, Σ c, Σ z_a², Σ z_a·c, Σ c²
        with c = z_b − b̄_h, per trial and column."""
        kept = keep[:, self.inside]
        w = self.weights * kept
        w2 = w * self.weights
        cnt = (self.sampled * kept).sum(axis=1)[:, None]
        sa, zb = w @ self.a, w @ self.b
        sb = zb - cnt * self.b_mean
        saa = w2 @ (self.a * self.a)
        sab = w2 @ (self.a * self.b) - self.b_mean * sa
        sbb = w2 @ (self.b * self.b) - 2 * self.b_mean * zb + cnt * self.b_mean**2
        return cnt, sa, sb, saa, sab, sbb

    def residual_sums(self, parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
        """Σ ψ and Σ ψ² over the stratum's sample, ψ = z_a − λ c with each part's own λ (T,)."""
        total = np.zeros((self.count.shape[0], self.a.shape[1]))
        squares = np.zeros_like(total)
        for keep, lam in parts:
            _, sa, sb, saa, sab, sbb = self.sums(keep)
            lam_col = lam[:, None]
            total += sa - lam_col * sb
            squares += saa - 2 * lam_col * sab + lam_col**2 * sbb
        return total, squares


def fitted_lambda(layers: list[Stratum], keep: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """λ̂ = Σ_h c_h Σ_k Ŝ_ab / Σ_h c_h Σ_k S_bb over the sampled units with `keep`, clipped to
    [0, 1] (c_h = M_h²(1 − f_h)/n_h, the stratum's weight in the variance); 0 where fewer than two
    units of a stratum inform it (with nothing known, the gold sample alone cannot be hurt). The
    pseudo-unit is left out of the fit: it widens the interval and never moves λ or the estimate."""
    numerator = np.zeros(mask.shape[0])
    denominator = np.zeros(mask.shape[0])
    for layer in layers:
        cnt, sa, sb, _, sab, _ = layer.sums(keep)
        n_h = layer.count
        with np.errstate(invalid="ignore", divide="ignore"):
            weight = np.where(n_h > 0, layer.size**2 * np.maximum(1 - n_h / layer.size, 0.0) / np.maximum(n_h, 1), 0.0)
            covariance = np.where(cnt >= 2, (sab - sa * sb / cnt) / (cnt - 1), 0.0).sum(axis=1)
        numerator += weight * covariance
        denominator += weight * layer.b_spread.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        lam = np.where(denominator > 1e-300, numerator / denominator, 0.0)
    return np.clip(lam, 0.0, 1.0)


def folds(mask: np.ndarray, count: int) -> list[np.ndarray]:
    """`count` fold masks (T × M): the sampled units of each trial dealt round-robin in index order."""
    position = np.cumsum(mask, axis=1) - 1
    dealt = np.where(mask > 0, np.mod(position, max(count, 1)), -1)
    return [(dealt == f).astype(np.float64) for f in range(max(count, 1))]


@dataclass(frozen=True)
class Weights:
    """The LLM term's weight λ over the sample: each part of it rectified with its own λ."""

    parts: list[tuple[np.ndarray, np.ndarray]]  # (keep (T × M), λ (T,)): the units of a part and their λ
    reported: np.ndarray  # (T,) the λ an interval reports (cross-fit: the folds' λ weighted by their units)


def stratified_totals(
    layers: list[Stratum], weights: Weights, pseudo: str | None, shape: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray]:
    """(T × K) θ̂ = Σ_h M_h mean_{S_h} ψ and its variance Σ_h M_h² (1 − n_h/M_h) s²_{ψ,h} / n_h."""
    estimate = np.zeros(shape)
    variance = np.zeros_like(estimate)
    reported = weights.reported
    with np.errstate(invalid="ignore", divide="ignore"):
        for layer in layers:
            total, squares = layer.residual_sums(weights.parts)
            count = layer.count[:, None]
            mean = total / count
            spread = np.maximum(squares - count * mean**2, 0.0)
            if pseudo is not None:
                spread = spread + reported[:, None] ** 2 * layer.pseudo_square(pseudo)
            spread = spread / (count - 1)
            fpc = 1.0 - count / layer.size
            estimate += layer.size * mean
            variance += np.where(fpc > 0, layer.size**2 * fpc * spread / count, 0.0)
    return estimate, variance
