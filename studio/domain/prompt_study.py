"""A prompt collection and the study of it: prompts written by several authors for one guideline,
the label sets made with them, and how far the labels move with the wording."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypedDict

STUDY_METHODS = ("binary", "graded", "pairwise")
StudyMethod = Literal["binary", "graded", "pairwise"]
Variance = Literal["population", "sample"]
VERDICTS = ("agree", "disagree", "tie")
# The published pairwise sample's strata: which reference grades the two passages have.
PAIR_CATEGORIES = {"3-vs-01": (3, (0, 1)), "2-vs-01": (2, (0, 1)), "3-vs-2": (3, (2,))}


@dataclass(frozen=True)
class StudyPrompt:
    """One author's prompt for one method: a system and a user message."""

    prompt_id: str
    participant: str
    group: str  # `people`, `llm`, or the author's own name
    method: str
    system: str
    user: str


@dataclass(frozen=True)
class PreferenceRow:
    """A pair of passages judged in both orders: `a` is the one the reference grades higher.
    `a_first`/`b_first` are the raw answers (1: the passage shown first wins) when known."""

    qid: str
    category: str
    doc_a: str
    doc_b: str
    verdict: str
    a_first: float | None = None
    b_first: float | None = None


@dataclass(frozen=True)
class StudyPlan:
    """What to run: which methods of which collection, on which sample, named how."""

    collection: str
    methods: tuple[str, ...]
    test_collection: str
    ref: str = "human"
    prefix: str = "study"
    per_grade: int | None = 10
    per_category: int | None = 10
    seed: int = 0
    topics: tuple[str, ...] | None = None


class StudyCell(TypedDict):
    """One prompt with one model on one collection: its agreement with the reference."""

    label_set: str
    prompt: str
    group: str
    model: str
    method: str
    collection: str
    agreement: float | None
    pairs: int
    kendall_tau: float | None  # the leaderboard under the prompt's labels against the reference's
    position_bias: float | None  # pairwise: share of answers that chose the passage shown first
    tie_rate: float | None  # pairwise: share of pairs whose two orders disagree


class StudyGroup(TypedDict):
    """Mean and variance of the agreement of a group's prompts (Table 4.5 of the thesis)."""

    model: str
    group: str
    method: str
    collection: str
    mean: float | None
    variance: float | None
    cells: int


class StudyTableRow(TypedDict):
    """One row of Table 4.5 as the thesis prints it: a model × author group (× test collection,
    unless pooled), each method's mean agreement, its variance and how many cells it rests on."""

    model: str
    group: str
    collection: str
    binary_mean: float | None
    binary_variance: float | None
    binary_cells: int
    graded_mean: float | None
    graded_variance: float | None
    graded_cells: int
    pairwise_mean: float | None
    pairwise_variance: float | None
    pairwise_cells: int


@dataclass(frozen=True)
class StudyOptions:
    """How the study's agreement is taken (docs/sensitivity.md). Binary κ binarises each side at its
    level (`ref_relevant`, `relevant`); graded κ is on the grades unless `binarise_ref` binarises the
    reference alone at that level (the judge's 0–3 kept, as the thesis's Table 4.5); with
    `pool_collections` a group's mean and variance are over its cells of every test collection."""

    ref_relevant: float = 2.0
    relevant: float = 1.0
    binarise_ref: float | None = None
    pool_collections: bool = False
    variance: Variance = "sample"


class StudyAlpha(TypedDict):
    """Krippendorff's α between the prompts of one group (each prompt a coder)."""

    model: str
    group: str
    method: str
    collection: str
    alpha: float | None
    level: str
    prompts: int
    units: int


class LexicalDiversity(TypedDict):
    """How differently a group's prompts are worded, per message."""

    group: str
    method: str
    message: str  # system | user
    prompts: int
    type_token_ratio: float | None
    jaccard_distance: float | None


class StudyReport(TypedDict):
    ref: str
    variance: str  # population | sample
    ref_relevant: float
    relevant: float
    binarise_ref: float | None  # graded κ against the reference binarised here (None: on the grades)
    pool_collections: bool
    cells: list[StudyCell]
    groups: list[StudyGroup]
    table: list[StudyTableRow]  # `groups` as Table 4.5: model × group rows, method columns
    alpha: list[StudyAlpha]
    lexical_diversity: list[LexicalDiversity]


class StudyRunSummary(TypedDict):
    """What `studio sensitivity run` judged: one label set per prompt × model × method."""

    label_sets: list[str]
    calls: int
    cache_hits: int
    failures: int
    report: StudyReport
