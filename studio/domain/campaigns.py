"""Assessment campaigns with the LLM in the loop: the three conditions people judge under, and what
the campaign commands answer (`studio assess plan|list|show|pairs|import|report`).

TypedDicts, as in `rows.py`: plain dicts at run time, so the JSON the commands print is them as they
are, in the order declared here.
"""

# No `from __future__ import annotations`: TypedDict must see NotRequired[...] itself.
from dataclasses import dataclass
from enum import StrEnum
from typing import TypedDict


class Condition(StrEnum):
    """How a topic's pool is put before people (Upadhyay et al., TREC RAG 2024)."""

    manual = "manual"  # the whole pool, the LLM's grade never shown
    filtering = "filtering"  # the pairs the LLM calls relevant, its grade never shown
    post_editing = "post-editing"  # the same pairs grouped by the LLM's grade, which is shown

    @property
    def filters(self) -> bool:
        """Whether the condition drops the pairs the LLM calls non-relevant."""
        return self is not Condition.manual

    @property
    def shows_llm(self) -> bool:
        """Whether the LLM's grade is on screen while a person grades."""
        return self is Condition.post_editing


CONDITIONS = tuple(Condition)


class PairRole(StrEnum):
    """What a pool pair of a campaign is for."""

    shown = "shown"  # put before people under its topic's condition
    dropped = "dropped"  # left out by its condition (the LLM called it non-relevant)
    recall = "recall"  # dropped, but drawn to be graded blind: what filtering hides, estimated


RECALL_SUFFIX = "-recall"  # the label set of a campaign's recall sample is named NAME-recall


class CampaignRecord(TypedDict):
    """A campaign as the store keeps it."""

    campaign_id: int
    name: str  # also its label set's
    llm: str  # the LLM label set
    pool: str  # qrels:NAME or runs:K
    llm_relevant: float  # an LLM grade below it is non-relevant
    overlap: float
    seed: int
    created: str


class StoredGrade(TypedDict):
    """An assessor's grade that stands (newest of the pair and assessor, its event not undone)."""

    qid: str
    docid: str
    assessor: str
    condition: str
    grade: float
    seconds: float | None
    llm_visible: bool


# -- plan -------------------------------------------------------------------------------------------


class ConditionPlan(TypedDict):
    """One condition of a planned campaign."""

    condition: str
    topics: int
    pool: int  # the condition's pool pairs
    shown: int  # of them, those put before people
    reduction: float | None  # 1 − shown / pool (None: an empty pool)


class AssessorLoad(TypedDict):
    """The pairs one assessor is given under one condition."""

    assessor: str
    condition: str
    pairs: int
    shared: int  # of them, pairs another assessor is given too


class CampaignPlan(TypedDict):
    """A campaign made (`studio assess plan`)."""

    campaign: str
    llm: str
    pool: str
    llm_relevant: float
    seed: int
    overlap: float
    topics: int
    pairs: int  # pool pairs over every condition
    shown: int
    without_llm_grade: int  # pool pairs the LLM does not grade (kept in every condition)
    recall_sample: int  # dropped pairs drawn to be graded blind (with the manual condition's view)
    assessor_hours: float  # the shown pairs (and the shared ones twice) at the project's pace
    seconds_per_decision: float
    conditions: list[ConditionPlan]
    assessors: list[AssessorLoad]


# -- list, show, pairs, import ----------------------------------------------------------------------


class CampaignRow(TypedDict):
    """A campaign in `studio assess list`."""

    campaign: str
    llm: str
    pool: str
    llm_relevant: float
    topics: int
    shown: int  # the conditions' pairs, as the plan counts them (the recall sample apart)
    judged: int  # of them, pairs with a grade standing
    assessors: int
    created: str


class ConditionProgress(TypedDict):
    condition: str
    topics: int
    pool: int
    shown: int
    judged: int


class AssessorProgress(TypedDict):
    assessor: str
    condition: str
    given: int | None  # pairs assigned (None: the campaign assigns none, anyone grades any pair)
    graded: int
    seconds: float  # summed over the timed grades


class CampaignProgress(TypedDict):
    """A campaign's progress (`studio assess show`)."""

    campaign: str
    llm: str
    pool: str
    llm_relevant: float
    seed: int
    created: str
    shown: int  # the conditions' pairs, as the plan counts them (the recall sample apart)
    judged: int
    conditions: list[ConditionProgress]
    recall_sample: int
    recall_judged: int
    assessors: list[AssessorProgress]


class CampaignPair(TypedDict):
    """A pair put before people (`studio assess pairs`), in walk order: what any front end may show."""

    qid: str
    docid: str
    condition: str
    llm_grade: float | None  # only where the condition shows it (post-editing); None elsewhere
    position: int


class CampaignImport(TypedDict):
    """Grades imported from a qrels file (`studio assess import`)."""

    campaign: str
    assessor: str
    file: str
    lines: int
    labels_written: int
    judged: int  # shown pairs with a grade standing, after the import
    shown: int


class CampaignGradeWritten(TypedDict):
    """One grade (or an undo) written by a person walking the campaign."""

    campaign: str
    qid: str
    docid: str
    assessor: str
    condition: str
    grade: float | None  # None: taken back
    llm_visible: bool
    earlier: float | None  # an undo: the grade taken back; a grade: the one it replaced (None: none)


# The scale people grade on, as TREC DL's assessors and UMBRELA's prompt word it (docs/assess.md).
@dataclass(frozen=True)
class ScaleGrade:
    """One grade of the scale: its name, what it means, and that in a few words (for the screen)."""

    grade: int
    name: str
    meaning: str
    brief: str


# The scale people grade on, as TREC DL's assessors and UMBRELA's prompt word it (docs/assess.md).
GRADE_SCALE: tuple[ScaleGrade, ...] = (
    ScaleGrade(
        3,
        "perfectly relevant",
        "the passage is dedicated to the query and contains the exact answer",
        "the exact answer",
    ),
    ScaleGrade(
        2,
        "highly relevant",
        "the passage has some answer for the query, but it may be unclear or hidden among extraneous information",
        "some answer, unclear or hidden",
    ),
    ScaleGrade(1, "related", "the passage seems related to the query but does not answer it", "no answer"),
    ScaleGrade(0, "irrelevant", "the passage has nothing to do with the query", "nothing to do with it"),
)


# -- walking a campaign -----------------------------------------------------------------------------


class CampaignPairView(CampaignPair):
    """What the campaign screen shows of one pair: the pair as listed, its texts and its group."""

    query: str
    passage: str
    group: str | None  # post-editing: the announcement of the pair's group
    opens_group: bool  # the pair is the first of its group (the announcement is new)
    index: int
    total: int


@dataclass(frozen=True)
class PoolPair:
    """A pool pair of a campaign, in walk order, with its topic's condition: what the store keeps and
    the services walk, grade and report on."""

    qid: str
    docid: str
    llm_grade: float | None  # the LLM's grade (None: the LLM did not grade it), shown only under post-editing
    role: PairRole
    position: int
    topic_condition: Condition  # the condition of the pair's topic
    inclusion: float | None = None  # a recall pair's probability of being drawn

    @property
    def condition(self) -> Condition:
        """The condition the pair is shown under: its topic's, manual for a recall pair (graded blind)."""
        return Condition.manual if self.role is PairRole.recall else self.topic_condition

    @property
    def shown(self) -> bool:
        """Whether the pair is put before people (every role but dropped)."""
        return self.role is not PairRole.dropped

    def listed(self) -> CampaignPair:
        """The pair as a front end may show it: the LLM's grade only where the condition shows it."""
        shows = self.condition.shows_llm
        return CampaignPair(
            qid=self.qid,
            docid=self.docid,
            condition=str(self.condition),
            llm_grade=self.llm_grade if shows else None,
            position=self.position,
        )


@dataclass(frozen=True)
class CampaignStep:
    """A grade (or an undo) decided in memory, to write."""

    action: str  # grade | undo
    pair: PoolPair | None  # the pair graded (None for an undo)
    grade: float | None
    seconds: float | None
    position: int | None  # the position current before the step
