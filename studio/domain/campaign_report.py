"""What `studio assess report` answers of a campaign: per condition the pool's reduction, the
grades, τ between the leaderboards, agreement between assessors, the anchoring effect and the
recall lost (docs/assess.md).

TypedDicts, as in `rows.py`: plain dicts at run time, so the JSON the command prints is them as
they are, in the order declared here.
"""

# No `from __future__ import annotations`: TypedDict must see NotRequired[...] itself.
from typing import NotRequired, TypedDict


class ConfusionCell(TypedDict):
    llm: float | None  # None: the LLM did not grade the pair
    assessor: float
    pairs: int


class GradeCount(TypedDict):
    grade: float
    pairs: int
    per_topic: float  # pairs of the grade per topic of the condition


class TauBySubsample(TypedDict):
    fraction: float
    topics: int
    mean: float | None
    low: float | None
    high: float | None


class MeasureTau(TypedDict):
    """The LLM's leaderboard against the campaign's on a condition's topics, for one measure."""

    measure: str
    runs: int
    kendall_tau: float | None  # run level, τ-b
    per_topic_tau: float | None
    subsampling: list[TauBySubsample]
    versus_manual: float | None  # τ-b of this condition's leaderboard and the manual one (disjoint topics)


class ConditionReport(TypedDict):
    """Table 1, Fig. 5 and Table 2 of one condition."""

    condition: str
    topics: int
    pool: int
    shown: int
    judged: int
    reduction: float | None
    grades: list[GradeCount]  # the assessors' grades of the judged pairs
    assessor_hours: float  # summed over the timed grades
    timed_grades: int
    confusion: list[ConfusionCell]  # the LLM's grade × the campaign's grade, judged pairs
    upgrades: int  # the campaign's grade above the LLM's
    downgrades: int
    kendall_tau: dict[str, float | None]  # measure → run-level τ-b
    correlations: list[MeasureTau]
    agreement: NotRequired["ConditionAgreement"]


class CoupleKappa(TypedDict):
    assessor_a: str
    assessor_b: str
    pairs: int
    agreeing: int
    kappa: float | None


class ConditionAgreement(TypedDict):
    """Agreement of a condition's assessors on the pairs two of them graded."""

    overlap_pairs: int
    krippendorff_alpha: float | None
    couples: list[CoupleKappa]


class Proportion(TypedDict):
    pairs: int
    same_as_llm: int
    share: float | None
    low: float | None  # Wilson 95%
    high: float | None


class Anchoring(TypedDict):
    """How often people give the LLM's grade when they see it against when they do not."""

    basis: str
    visible: Proportion  # post-editing: grades equal to the LLM's shown grade
    hidden: Proportion  # manual and filtering, pairs the LLM calls relevant: grades equal to it anyway
    difference: float | None  # visible − hidden
    low: float | None  # 95%, topics resampled (a percentile bootstrap)
    high: float | None
    pair_low: float | None  # Newcombe's hybrid score interval (95%), every grade independent
    pair_high: float | None
    anchoring_rate: float | None  # difference / (1 − hidden): share of grades that follow the LLM's
    rate_low: float | None  # 95%, topics resampled
    rate_high: float | None
    topics_visible: int
    topics_hidden: int


class CampaignAssessor(TypedDict):
    assessor: str
    conditions: list[str]
    graded: int
    timed: int
    hours: float


class CampaignAssessors(TypedDict):
    per_assessor: list[CampaignAssessor]
    agreement: dict[str, ConditionAgreement]  # condition → agreement of its assessors


class RecallLoss(TypedDict):
    """What a filtering condition hides: relevant pairs among the dropped ones, estimated from the
    recall sample graded blind (Horvitz–Thompson, π = graded / dropped pairs of the condition)."""

    condition: str
    dropped: int
    sampled: int
    graded: int
    relevant: int  # graded sample pairs the campaign grades at or above llm_relevant
    hidden_relevant: float | None  # estimated relevant pairs among the dropped ones
    low: float | None  # 95% (Wilson on the sample's share, times the dropped pairs)
    high: float | None
    relevant_shown: int  # judged shown pairs at or above llm_relevant
    recall: float | None  # relevant_shown / (relevant_shown + hidden_relevant)
    recall_low: float | None
    recall_high: float | None


class LlmState(TypedDict):
    """Which LLM grades a campaign's report read, and what changed in its LLM set since planning."""

    grades: str  # "planned": the grades the campaign kept when planned | "today": the set as it is now (--live)
    changed: bool  # the LLM set changed since the campaign was planned
    pairs_written: int | None  # pairs of the set written since planning (None: planned before the studio kept a mark)
    pool_pairs_differing: int  # pool pairs whose grade in the set now differs from the one kept (or is gone)
    note: str | None  # what the report says of it (None: nothing changed)


class CampaignReport(TypedDict):
    """`studio assess report`."""

    campaign: str
    llm: str
    llm_relevant: float
    llm_state: LlmState
    measures: list[str]
    conditions: list[ConditionReport]
    anchoring: Anchoring
    assessors: CampaignAssessors
    recall: list[RecallLoss]
