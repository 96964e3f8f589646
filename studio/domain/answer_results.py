"""The leaderboard of generative systems (`studio answers`): the grades a label set gives their answers.

A TypedDict, as in `rows.py`: a plain dict at run time (JSON as it is, key order included); what
an Answers screen's session answers and moves, frozen dataclasses.
"""

from dataclasses import dataclass
from typing import TypedDict


class AnswerRow(TypedDict):
    """One generative system: the mean grade of its answers, with a 95% bootstrap interval over topics."""

    system: str
    mean: float  # over the topics it answered
    low: float
    high: float
    topics: int  # topics whose answer the label set grades


class AnswerScoreRow(TypedDict):
    """One system under one answers label set (`studio answers --labels`): its score, a 95%
    percentile bootstrap interval over the topics it answered, and how many those are."""

    system: str
    method: str  # binary | graded | subtopics | preferences | embedding
    score: float
    low: float
    high: float
    topics: int
    label_set: str


class MethodAgreement(TypedDict):
    """Two answers label sets' orders of the systems (`studio answers compare`), on the topics both label."""

    a: str
    b: str
    method_a: str
    method_b: str
    systems: int
    topics: int  # both label: each system's score is its mean over these
    kendall_tau: float | None  # τ-b
    kendall_tau_a: float | None
    order_a: list[str]  # best first
    order_b: list[str]


class TournamentRow(TypedDict):
    """One system of a tournament between answers (`studio answers tournament`): its Bradley–Terry
    strength, the Elo-scaled rating beside it with a 95% bootstrap interval over topics, its record."""

    system: str
    strength: float  # p: P(beats j) = p / (p + p_j)
    elo: float
    elo_low: float
    elo_high: float
    wins: int
    ties: int  # the two orders of a match disagreed
    losses: int
    topics: int


class Tournament(TypedDict):
    label_set: str
    systems: int
    topics: int
    matches: int  # pairs of answers judged in both orders
    calls_per_topic_bound: int  # 2·n·⌈log₂ n⌉: what the pair sampling allows a topic
    resamples: int
    seed: int
    rows: list[TournamentRow]


class CategoryPairRow(TypedDict):
    """Passage pairs from two reference categories of a topic (`studio validate`): the shares the
    method orders as the categories are (agree), ties and orders the other way (disagree)."""

    pair: str  # best_vs_unacceptable | acceptable_vs_unacceptable | best_vs_acceptable
    higher: str
    lower: str
    higher_count: int  # passages of the higher category in the pairs compared
    lower_count: int
    pairs: int
    agree: float | None  # None: no pair to compare
    tie: float | None
    disagree: float | None
    topics: int  # topics with a pair compared


class Validation(TypedDict):
    """How a method orders the reference's Best, Acceptable and Unacceptable passages (Arabzadeh &
    Clarke's validation before a method is trusted with answers)."""

    label_set: str
    ref: str
    how: str  # grades | preferences | embedding: what ordered each pair
    relevant: float  # the reference grade from which a passage is Acceptable (Best: the topic's top grade)
    topics: int  # topics with a Best passage
    seed: int | None  # of the exemplar draws (embedding)
    rows: list[CategoryPairRow]


class ScaleRow(TypedDict):
    """A run or a system on the runs' scale (`studio answers runs`): the mean cosine similarity to the
    topics' top-grade passages (targets) of the run's first retrieved passage that is not the target,
    or of the system's answer."""

    kind: str  # run | system
    name: str
    similarity: float | None  # None: nothing to compare on the chosen topics
    measure: float | None  # the run's measure under the reference on the same topics (None for systems)
    comparisons: int  # (topic, target) pairs averaged
    topics: int


class RunsScale(TypedDict):
    ref: str
    measure: str
    model: str
    topics: int  # with a target and (when there are answers) answered
    targets: int
    kendall_tau: float | None  # τ-b between the runs' similarity and their measure
    band: list[float]  # [lowest, highest] similarity of the systems ([] without answers)
    rows: list[ScaleRow]  # runs by similarity, then systems by similarity


class AnswerKey(TypedDict):
    """One (topic, system) a label set holds a verdict on: what an Answers screen steps through."""

    qid: str
    system: str
    verdict: float


class ExemplarShown(TypedDict):
    """A passage (or, in a tournament, another system's answer) the answer was compared with, both orders."""

    docid: str
    text: str | None
    exemplar_first: str | None  # picked with the exemplar shown first: answer | exemplar | None (failed)
    answer_first: str | None  # picked with the answer shown first
    outcome: str | None  # win | tie | loss (None: an order is missing)


class SubtopicEntry(TypedDict):
    """One item of a subtopic verdict: entry 0 is the query itself."""

    entry: int
    item_id: str
    text: str | None  # None: an imported vector names its entries only
    satisfied: bool | None  # None: the call failed


class AnswerCard(TypedDict):
    """Everything a person needs to keep or override one verdict."""

    label_set: str
    method: str
    qid: str
    query: str | None
    system: str
    answer: str | None  # None: the system's answers are not loaded
    verdict: float | None  # the set's current label
    judged: float | None  # what the judge or the imported file said, before any person's edit
    edited: bool  # the current label differs from `judged`
    raw: list[str]  # the raw answers (or imported words) behind the verdict
    exemplars: list[ExemplarShown]
    subtopics: list[SubtopicEntry]


@dataclass(frozen=True)
class AnswerSaved:
    """What writing an Answers screen's step saved: the verdict of (qid, system) now, and whether a
    person's check of it still stands (an undo may leave an earlier one)."""

    qid: str
    system: str
    verdict: float | None
    checked: bool


@dataclass(frozen=True)
class AnswerFigures:
    """What a checked verdict moves: the answers' leaderboard under every answers label set (the
    audited set's rows first) and Kendall τ between the audited set's order of the systems and each
    other set's."""

    label_set: str  # the audited set
    rows: list[AnswerScoreRow]
    agreements: list[MethodAgreement]


def answer_grade_keys(method: str, scale: int) -> tuple[int, ...]:
    """The grade keys that override a verdict of `method`: binary, subtopics and preferences 0 or 1
    (not relevant / relevant; no subtopic / every one; lost or tied / won), graded 0 to the set's
    scale; an embedding's cosine and a tournament's matches take none (they are kept or judged again)."""
    if method == "graded":
        return tuple(range(scale + 1))
    if method in ("binary", "subtopics", "preferences"):
        return (0, 1)
    return ()
