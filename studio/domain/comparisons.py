"""What comparing two label sets answers: leaderboard correlation, label agreement, the comparison
of several judging methods, and the leaderboard rows they stand on.

TypedDicts, as in `rows.py`: plain dicts at run time, so the JSON the commands print is the value as
it is (key order included), while strict mypy checks every key where one is read. Statistics that
are undefined (no topics, tied leaderboards) are None, printed as null: JSON has no NaN.
"""

# No `from __future__ import annotations`: TypedDict must see NotRequired[...] itself.
from typing import NotRequired, TypedDict

from studio.domain.frames import FrameJson


class EvalRow(TypedDict):
    """A row of `studio eval`: one run's value of one measure (and one topic's, with --per-topic)."""

    run: str
    measure: str
    value: float
    topics: int  # topics the mean is over (1 on a per-topic row)
    topic: NotRequired[str]  # the topic of a per-topic row


class SideLevels(TypedDict):
    """The relevance level each side's leaderboard counted as relevant for a binary measure."""

    ref: float
    qrels: float


class SwappedPair(TypedDict):
    """Two runs the leaderboards order in opposite ways, with their means on each side."""

    above_in_ref: str
    below_in_ref: str
    ref: list[float]  # [above's mean, below's mean] under the reference
    qrels: list[float]  # the same two runs' means under the other label set


class TauInterval(TypedDict):
    """A 95% bootstrap interval of Kendall τ over topics."""

    low: float | None
    high: float | None
    mean: float | None
    resamples: int
    seed: int
    level: float


class TauSubsample(TypedDict):
    """Kendall τ of leaderboards built on a random share of the topics, over many draws."""

    fraction: float
    topics: int  # topics in each draw
    mean: float | None
    std: float | None
    min: float | None
    max: float | None
    low: NotRequired[float | None]  # the draws' 2.5th percentile (UMBRELA's 95% interval)
    high: NotRequired[float | None]  # the draws' 97.5th percentile
    draws: NotRequired[int]
    level: NotRequired[float]


class BoardRow(TypedDict):
    """One run's mean under each side."""

    run: str
    ref: float
    qrels: float


class Correlation(TypedDict):
    """`studio correlate`: how well the leaderboard under `qrels` reproduces the one under `ref`.

    The live form (after an edit) stops at the run-level figures, `topics` and `frame`; the full one
    adds the rest."""

    ref: str
    qrels: str
    measure: str
    levels: NotRequired[SideLevels | None]  # None: the measure reads grades as gains
    runs: int
    kendall_tau: float | None  # τ-b (`kendall_variant`)
    kendall_variant: str
    kendall_tau_a: float | None
    spearman_rho: float | None
    tau_ap: float | None
    rbo: float | None
    swaps: int
    unmatched_runs: NotRequired[list[str]]  # an imported leaderboard's runs the other side lacks
    swapped_pairs: NotRequired[list[SwappedPair]]
    per_topic_tau: NotRequired[float | None]  # τ within each common topic, averaged
    pooled_tau: NotRequired[float | None]  # τ over every (topic, run) pair of the common topics
    bootstrap: NotRequired[TauInterval]
    subsampling: NotRequired[list[TauSubsample]]
    topics: int  # topics both sides label: what the per-topic statistics use
    leaderboard: NotRequired[list[BoardRow]]
    warnings: NotRequired[list[str]]
    frame: FrameJson | None  # the topics used and left out (None: an imported leaderboard's side)


class AlignmentBucket(TypedDict):
    """Cross-category document pairs judged by both sides, and the share ordered alike."""

    pairs: int
    agree: float | None
    tie: float | None
    disagree: float | None


class Thresholds(TypedDict):
    """The grade from which each side counts a label as relevant (binary κ)."""

    ref: float
    qrels: float


class Agreement(TypedDict):
    """`studio agree`: how alike two label sets grade the pairs both label."""

    ref: str
    qrels: str
    pairs: int
    thresholds: Thresholds
    warnings: list[str]
    kappa_binary: float | None
    kappa_graded: float | None
    kappa_linear: float | None
    kappa_quadratic: float | None
    krippendorff_alpha: float | None
    categories: list[float]
    confusion: list[list[int]]  # rows: the reference's grade, columns: the other side's
    more_lenient: float | None  # share of pairs the other side grades higher
    stricter: float | None
    per_topic_kappa: dict[str, float | None]
    alignment: dict[str, AlignmentBucket]
    topics: int  # topics both label: the pairs both label lie on them
    frame: FrameJson


class MethodComparison(TypedDict):
    """A row of `studio compare`: one label set against the reference, labels and leaderboard."""

    qrels: str
    measure: str
    pairs: int
    kappa_binary: float | None
    kappa_graded: float | None
    krippendorff_alpha: float | None
    alignment: dict[str, AlignmentBucket]
    kendall_tau: float | None
    kendall_tau_low: float | None
    kendall_tau_high: float | None
    tau_ap: float | None
    tau_ap_low: float | None
    tau_ap_high: float | None
    compat_tau: float | None  # τ of its Compat leaderboard against the reference's nDCG@10 one
    more_lenient: float | None
    stricter: float | None
    topics: int
    frame: FrameJson


class EnsembleScore(TypedDict):
    """How one member of an ensemble, or the ensemble, agrees with the reference."""

    qrels: str
    role: str  # member, or ensemble (how)
    pairs: int
    kappa_graded: float | None
    kappa_binary: float | None
    kendall_tau: float | None
    topics: int
    frame: FrameJson


class EnsembleScores(TypedDict):
    """`studio ensemble scores`: each member and the ensemble against the reference."""

    ensemble: str
    how: str
    ref: str
    measure: str
    rows: list[EnsembleScore]
