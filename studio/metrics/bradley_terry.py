"""Bradley–Terry ratings of systems from pairwise verdicts, with Elo-scaled ratings beside them.

P(i beats j) = p_i / (p_i + p_j). A tie (the two orders of a pair disagreeing) counts half a win
to each side, so the fit does not depend on which answer was shown first, nor on the order of the
verdicts. Each system also plays one virtual tie against a fixed player of strength 1: a weak prior
that keeps a system that won (or lost) every match at a finite rating and fixes the scale (without
it, ratings are defined up to a common factor). The penalised log-likelihood

    Σ_ij W_ij log(p_i / (p_i + p_j)) + Σ_i ½ log(p_i / (p_i + 1)) + ½ log(1 / (p_i + 1))

(W_ij the wins of i over j, ties halved) is concave in θ = log p and is maximised by Newton's method
on many win matrices at once (the bootstrap's resamples); the prior keeps its Hessian negative
definite. Elo = 1500 + 400·log₁₀ p_i, the scale on which a 400-point lead means 10:1 odds (RAGElo's).
"""

from __future__ import annotations

import numpy as np

ELO_BASE = 1500.0
ELO_SCALE = 400.0
PRIOR_TIES = 1.0  # virtual ties of each system against the player of strength 1
TOLERANCE = 1e-12  # of the largest change of log p in the last Newton step
MAX_ITERATIONS = 200
MAX_STEP = 2.0  # the largest change of a log strength in one step (a damped first step far from the optimum)


def fit_strengths(wins: np.ndarray) -> np.ndarray:
    """Strengths p from a (n × n) win matrix, or from a stack of them (… × n × n): wins[i, j] is how
    often i beat j, ties counted half to each."""
    wins = np.asarray(wins, dtype=np.float64)
    stacked = wins.reshape(-1, *wins.shape[-2:])
    games = stacked + np.swapaxes(stacked, -1, -2)
    won = stacked.sum(axis=-1)
    theta = np.zeros(stacked.shape[:-1])
    eye = np.eye(stacked.shape[-1], dtype=bool)
    for _ in range(MAX_ITERATIONS):
        step = _newton_step(theta, won, games, eye)
        theta = theta + step
        if not step.size or np.max(np.abs(step)) < TOLERANCE:
            break
    return np.exp(theta).reshape(wins.shape[:-1])


def _newton_step(theta: np.ndarray, won: np.ndarray, games: np.ndarray, eye: np.ndarray) -> np.ndarray:
    """The (damped) Newton step of the penalised log-likelihood at `theta`, for every matrix at once."""
    beats = 1.0 / (1.0 + np.exp(theta[..., None, :] - theta[..., :, None]))  # P(i beats j)
    prior = 1.0 / (1.0 + np.exp(-theta))  # P(i beats the player of strength 1)
    gradient = won - (games * beats).sum(axis=-1) + PRIOR_TIES * (0.5 - prior)
    curvature = games * beats * (1.0 - beats)
    hessian = np.where(eye, -(curvature.sum(axis=-1) + PRIOR_TIES * prior * (1 - prior))[..., :, None], curvature)
    step = -np.linalg.solve(hessian, gradient[..., None])[..., 0]
    largest = np.max(np.abs(step), axis=-1, keepdims=True) if step.size else step
    return step * np.minimum(1.0, MAX_STEP / np.maximum(largest, MAX_STEP * 1e-300))


def elo(strengths: np.ndarray) -> np.ndarray:
    """Elo-scaled ratings of Bradley–Terry strengths."""
    return ELO_BASE + ELO_SCALE * np.log10(strengths)


def win_matrix(matches: np.ndarray, n: int) -> np.ndarray:
    """The (n × n) win matrix of matches given as rows (i, j, score of i): 1 a win, 0 a loss, ½ a tie."""
    wins = np.zeros((n, n))
    if len(matches):
        i, j, score = matches[:, 0].astype(int), matches[:, 1].astype(int), matches[:, 2]
        np.add.at(wins, (i, j), score)
        np.add.at(wins, (j, i), 1.0 - score)
    return wins


def topic_win_matrices(matches_by_topic: list[np.ndarray], n: int) -> np.ndarray:
    """One win matrix per topic (topics × n × n), so a resample of topics is a sum of their matrices."""
    return np.stack([win_matrix(m, n) for m in matches_by_topic]) if matches_by_topic else np.zeros((0, n, n))


def bootstrap_elo(
    topic_wins: np.ndarray, *, resamples: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile intervals (low, high) of each system's Elo rating over resamples of the topics with
    replacement (`np.random.default_rng(seed)`), every resample fitted at once."""
    n_topics = topic_wins.shape[0]
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_topics, size=(resamples, n_topics))
    counts = np.stack([np.bincount(row, minlength=n_topics) for row in draws]).astype(np.float64)
    resampled = np.einsum("rt,tij->rij", counts, topic_wins)
    ratings = elo(fit_strengths(resampled))
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(ratings, [tail, 100 - tail], axis=0)
    return low, high
