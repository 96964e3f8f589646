"""One run pair's significance decision and the labels it hangs on (`studio significance --pair`),
and the run-pair decisions a partial audit already supports (`studio estimate --decisions`).

TypedDicts, as in `rows.py`: plain dicts at run time (JSON as they are, key order included).
"""

# No `from __future__ import annotations`: TypedDict must see NotRequired[...] itself.
from typing import NotRequired, TypedDict

from studio.domain.significance import DecisionLabel


class PairDecision(TypedDict):
    """A run pair tested under one label set, among every pair of the runs tested."""

    delta: float | None  # mean(run_a) − mean(run_b), in the order the pair was named
    p_value: float | None
    p_adjusted: float | None  # corrected over every pair of the runs tested
    significant: bool


class PairLabels(TypedDict):
    """The decision on one run pair under both label sets, and the labels it hangs on."""

    ref: str
    qrels: str
    measure: str
    run_a: str
    run_b: str
    test: str
    correction: str
    alpha: float
    topics: int  # those both label sets label and both runs have: the test's sample
    decision: str  # the class of the two decisions, one of significance.DECISION_CLASSES
    qrels_decision: PairDecision
    ref_decision: PairDecision
    labels_total: int  # before --limit
    labels: list[DecisionLabel]  # the largest |change| first


class AuditPairDecision(TypedDict):
    """A run pair as the partial audit's estimate decides it, the higher estimate first."""

    run_a: str
    run_b: str
    difference: float | None  # the estimate's difference run_a − run_b
    se: float | None  # its standard error
    df: float | None  # the t distribution's degrees of freedom, as the estimate's interval uses
    p_value: float | None  # two-sided, against t(df): below 1 − level exactly when the interval excludes 0
    p_adjusted: float | None
    significant: bool
    # With the full reference label set: the same pair as `studio significance` decides it there.
    ref_delta: NotRequired[float | None]  # in this row's orientation
    ref_p_adjusted: NotRequired[float | None]
    ref_significant: NotRequired[bool]
    supported: NotRequired[bool]  # significant here and under the reference, the same run ahead


class AuditDecisions(TypedDict):
    """Which run-pair decisions the partial audit supports, corrected for the number of pairs."""

    correction: str
    alpha: float
    significant: int
    pairs: list[AuditPairDecision]
    ref: NotRequired[str]
    ref_test: NotRequired[str]
    ref_significant: NotRequired[int]
    ref_topics: NotRequired[int]  # the topics the reference decides on: those it shares with the audited set
    supported: NotRequired[int]  # of the audit's significant pairs, those the reference supports
