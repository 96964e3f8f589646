"""Significance tests between runs and the agreement of two label sets' decisions: the rows
`studio significance` prints and `Project.significance` returns.

TypedDicts, as in `rows.py`: plain dicts at run time (JSON as they are, key order included).
"""

# No `from __future__ import annotations`: TypedDict must see NotRequired[...] itself.
from dataclasses import dataclass
from enum import StrEnum
from typing import NotRequired, TypedDict

from studio.domain.frames import FrameJson

SIGNIFICANCE_TESTS = ("t", "randomization", "bootstrap", "tukey")
CORRECTIONS = ("holm", "bh", "bonferroni", "none")
DECISION_CLASSES = ("both", "opposite", "ref_only", "qrels_only", "neither")
TOP_K = (5, 10, 20)
DEFAULT_RESAMPLES = 10_000


@dataclass(frozen=True)
class SignificancePlan:
    """How every run pair is tested and decided: the test, the correction over the pairs, α, and
    the resampling tests' resamples and seed (one value that every door passes along)."""

    test: str = "t"
    correction: str = "holm"
    alpha: float = 0.05
    resamples: int = DEFAULT_RESAMPLES
    seed: int = 0


DEFAULT_PLAN = SignificancePlan()  # a t-test per pair, Holm over the pairs, α 0.05


class SignificantPair(TypedDict):
    """One unordered run pair, the run with the higher mean under the tested label set first."""

    run_a: str
    run_b: str
    delta: float | None  # mean(run_a) − mean(run_b) over the pair's tested topics
    p_value: float | None  # None: fewer than two topics to test on
    p_adjusted: float | None
    significant: bool
    topics: int
    # With a reference label set: the same pair tested under it, and the class of the two decisions.
    ref_delta: NotRequired[float | None]
    ref_p_value: NotRequired[float | None]
    ref_p_adjusted: NotRequired[float | None]
    ref_significant: NotRequired[bool]
    decision: NotRequired[str]  # one of DECISION_CLASSES


class DecisionAgreement(TypedDict):
    """How the audited set's significant pairs match the reference's (see docs/statistics.md)."""

    both: int  # significant under both, same direction
    opposite: int  # significant under both, opposite directions
    ref_only: int
    qrels_only: int
    neither: int
    precision: float | None  # both / pairs significant under the audited set (None: it has none)
    recall: float | None  # both / pairs significant under the reference (None: it has none)


class BestRun(TypedDict):
    """Whether the reference's best run beats every other run significantly."""

    run: str
    ref: bool
    qrels: bool
    both: bool


class Significance(TypedDict):
    qrels: str
    measure: str
    test: str
    correction: str
    alpha: float
    runs: int
    resamples: int | None  # None for the t-test
    seed: int | None
    pairs: list[SignificantPair]
    ref: NotRequired[str]
    agreement: NotRequired[DecisionAgreement]
    top_k_tau: NotRequired[dict[str, float | None]]  # Kendall τ-b among the reference's top k runs
    best_run: NotRequired[BestRun | None]
    topics: NotRequired[int]  # with a reference or chosen topics: the topics tested on
    frame: NotRequired[FrameJson]  # with a reference: the topics used and left out


class DecisionLabel(TypedDict):
    """A label of the audited set that a run pair's difference hangs on: the change in the pair's
    delta were it to take the reference's grade."""

    qid: str
    docid: str
    grade: float | None  # the audited set's grade (None: unlabelled there)
    ref_grade: float | None
    change: float  # delta after − delta before
    retrieved_by: list[str]  # of the two runs, those that rank the document within the measure's depth


class DecisionLabels(TypedDict):
    ref: str
    qrels: str
    measure: str
    run_a: str
    run_b: str
    delta: float | None  # under the audited set, over the pair's shared topics
    ref_delta: float | None
    labels: list[DecisionLabel]


class SignificanceTest(StrEnum):
    """How each run pair is tested (docs/statistics.md, "Significance")."""

    t = "t"
    randomization = "randomization"
    bootstrap = "bootstrap"
    tukey = "tukey"


class Correction(StrEnum):
    """How p-values are corrected for the number of pairs tested."""

    holm = "holm"
    bh = "bh"
    bonferroni = "bonferroni"
    none = "none"
