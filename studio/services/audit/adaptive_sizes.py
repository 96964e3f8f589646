"""How big a `topics-neyman` or `pairs-uncertainty` audit must be for an interval of a given width
(`studio audit plan --target-width`), from the same pilot the simple designs are sized from.

`topics-neyman`: the topics in the design's strata (by their count of LLM-relevant pairs), each
stratum's S_h the largest (over runs) standard deviation of the per-topic rectifier gold − LLM over
the pilot's topics in it (a stratum the pilot reaches with fewer than two topics takes the overall
one), and the Neyman-allocated size of a stratified sample.

`pairs-uncertainty`: a design effect on the pair design's size. With the design's draw
probabilities q_i (π_i/n, the predicted errors s_i mixed with the uniform design), the
Horvitz–Thompson mean of gold − LLM has per-draw variance Σ_i e_i²/(N² q_i) − ē² (the
with-replacement approximation), against Σ_i e_i²/N − ē² for the uniform design. Taking the
predicted squared error s_i² for e_i² (what both the label distributions and the calibration
residual predict) gives the ratio; the pilot's spread times its square root is the spread the
size is computed from. Where the predicted errors are all alike the ratio is 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from studio.domain.audit_designs import TopicStratumSize
from studio.metrics import unequal_sampling as us
from studio.metrics.sampling import simple_sample_size, stratified_sample_size
from studio.services.audit import adaptive
from studio.services.audit.pool import PoolPair
from studio.store import Connection


def neyman_topic_size(
    con: Connection, qrels: str, pilot: str, rectifiers: dict[str, np.ndarray], width: float
) -> tuple[int | None, list[TopicStratumSize]]:
    """Topics a `topics-neyman` audit needs (the most any run needs), and per stratum its topics,
    the pilot's topics in it and S_h (the largest over runs). `rectifiers`: each pilot topic's
    gold − LLM per run."""
    strata = adaptive.topic_strata(con, qrels, pilot)
    sizes = strata.sizes()
    if len(rectifiers) < 2:
        return None, []
    overall = np.nanstd(np.array(list(rectifiers.values())), axis=0, ddof=1)  # (runs,)
    spreads = []  # (strata, runs)
    pilot_topics = []
    for h in range(len(strata.names)):
        inside = [
            rectifiers[q] for q, lab in zip(strata.topics, strata.labels, strict=True) if lab == h and q in rectifiers
        ]
        pilot_topics.append(len(inside))
        spreads.append(np.nanstd(np.array(inside), axis=0, ddof=1) if len(inside) >= 2 else overall)
    by_run = np.array(spreads)
    needed = [
        stratified_sample_size(sizes, by_run[:, k].tolist(), width)
        for k in range(by_run.shape[1])
        if np.isfinite(by_run[:, k]).all()
    ]
    rows = [
        TopicStratumSize(stratum=name, topics=size, pilot_topics=count, sd=float(np.nanmax(by_run[h])))
        for h, (name, size, count) in enumerate(zip(strata.names, sizes, pilot_topics, strict=True))
    ]
    return (max(needed) if needed else None), rows


def uncertainty_design_effect(scores: np.ndarray, mean_difference: float) -> float:
    """Var of the `pairs-uncertainty` design over the uniform one's, per draw, with e_i² = s_i²."""
    count = len(scores)
    if count == 0:
        return 1.0
    q = us.mixed_probabilities(scores, 1)  # the design's draw probabilities (Σ q = 1)
    q = np.where(q > 0, q, 1.0 / count)
    squares = np.square(np.asarray(scores, dtype=np.float64))
    uniform = float(squares.mean()) - mean_difference**2
    design = float((squares / q).sum()) / count**2 - mean_difference**2
    return design / uniform if uniform > 0 and design > 0 else 1.0


def uncertainty_pair_size(
    con: Connection,
    qrels: str,
    pilot: str,
    pairs: Sequence[PoolPair],
    differences: dict[tuple[str, str], float],
    width: float,
) -> tuple[int, float, str]:
    """Pairs a `pairs-uncertainty` audit needs, its design effect and where the predicted errors come from."""
    scores = adaptive.pair_error_scores(con, qrels, pairs, pilot)
    values = list(differences.values())
    effect = uncertainty_design_effect(scores.scores, float(np.mean(values)))
    spread = float(np.std(values, ddof=1)) * math.sqrt(effect)
    return simple_sample_size(spread, width, len(pairs)), effect, scores.source
