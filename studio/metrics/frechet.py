"""Fréchet distance between two sets of vectors (Arabzadeh & Clarke 2024): the squared
Wasserstein-2 distance of the Gaussians fitted to each set, as in FID.

    FD = ‖μa − μb‖² + Tr(Σa + Σb − 2 (Σa Σb)^½)

Sentence embeddings have hundreds of dimensions and a leaderboard row has tens or hundreds of
documents, so the covariances are usually rank-deficient. `scipy.linalg.sqrtm(Σa Σb)` is then
ill-conditioned (a non-symmetric, singular product); only the trace of the root is needed, and
Σa Σb has the same eigenvalues as the symmetric positive semi-definite √Σa Σb √Σa, whose
eigenvalues `eigh` finds reliably.
"""

from __future__ import annotations

import numpy as np


def frechet_distance(a: np.ndarray, b: np.ndarray) -> float:
    """FD between the rows of `a` and the rows of `b` (covariances with ddof 1); NaN when either
    side has fewer than 2 vectors."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError("frechet_distance takes two 2-d arrays of vectors (one vector a row)")
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"vectors of different dimensions: {a.shape[1]} and {b.shape[1]}")
    if len(a) < 2 or len(b) < 2:
        return float("nan")
    mean_gap = a.mean(axis=0) - b.mean(axis=0)
    cov_a = np.atleast_2d(np.cov(a, rowvar=False))
    cov_b = np.atleast_2d(np.cov(b, rowvar=False))
    value = float(mean_gap @ mean_gap + np.trace(cov_a) + np.trace(cov_b) - 2.0 * trace_sqrt_product(cov_a, cov_b))
    # The true value is a squared distance; rounding can leave a hair below zero for equal sets.
    return max(value, 0.0)


def trace_sqrt_product(cov_a: np.ndarray, cov_b: np.ndarray) -> float:
    """Tr((Σa Σb)^½) of two positive semi-definite matrices, via √Σa Σb √Σa."""
    root_a = psd_sqrt(cov_a)
    middle = root_a @ cov_b @ root_a
    # Symmetrise: the product is symmetric in exact arithmetic, not quite in floating point.
    eigenvalues = np.linalg.eigvalsh((middle + middle.T) / 2.0)
    # Tiny negative eigenvalues are rounding noise of a rank-deficient matrix.
    return float(np.sqrt(np.clip(eigenvalues, 0.0, None)).sum())


def psd_sqrt(matrix: np.ndarray) -> np.ndarray:
    """The symmetric square root of a positive semi-definite matrix (negative rounding noise dropped)."""
    eigenvalues, vectors = np.linalg.eigh((matrix + matrix.T) / 2.0)
    return (vectors * np.sqrt(np.clip(eigenvalues, 0.0, None))) @ vectors.T
