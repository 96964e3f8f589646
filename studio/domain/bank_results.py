"""What the bank facade hands back: a test bank's diagnostics, the Rubric-Cover@k leaderboard, the
stale cells bank edits leave, and what generating or nuggetizing a bank reports.

The JSON results are TypedDicts, as in `rows.py`: plain dicts at run time (JSON as they are, key
order included) whose keys strict mypy checks wherever they are read. Nuggetizing yields two kinds
of event, so they are frozen dataclasses a reader tells apart with isinstance.
"""

# No `from __future__ import annotations`: TypedDict must see NotRequired[...] itself.
from dataclasses import dataclass
from typing import NotRequired, TypedDict

# -- diagnostics (`studio bank report`) -------------------------------------------------------------


class ItemCoverage(TypedDict):
    """One bank item and the graded documents that cover it (item grade ≥ the report's min_grade)."""

    qid: str
    item_id: str
    kind: str  # question, nugget or subtopic
    importance: str | None  # vital, okay or None
    text: str
    covered: int  # documents covering the item
    covered_relevant: int  # … that the reference finds relevant
    covered_nonrelevant: int  # … that the reference judged non-relevant
    nonrelevant_docs: list[str]  # the latter's docids


class UncoveredDocument(TypedDict):
    """A reference-relevant document that was graded but that no item covers."""

    qid: str
    docid: str
    ref_grade: float
    best_item_grade: float  # its highest item grade, below the report's min_grade


class ItemEffect(TypedDict):
    """How the Exam-Binary leaderboard's Kendall τ against the reference moves without one item."""

    qid: str
    item_id: str
    text: str
    tau_without: float | None  # τ with the item left out (None: undefined)
    tau_change: float | None  # tau_without − τ with every item


# {qid: {docid: {item_id: grade}}}: the rubric judge's item grades.
ItemGradeGrid = dict[str, dict[str, dict[str, float]]]


class BankReport(TypedDict):
    """Diagnostics of a test bank from a rubric judge's item grades."""

    bank: str
    source: str  # the rubric judge's label set
    ref: str  # the reference label set
    min_grade: float  # an item covers a document at item grade ≥ this
    relevant_at: float  # the reference finds a document relevant at grade ≥ this
    items: list[ItemCoverage]
    spurious: list[ItemCoverage]  # items covered mostly by non-relevant documents, the worst first
    uncovered_relevant: list[UncoveredDocument]
    measure: str  # of the item effect's leaderboards
    tau_all_items: float | None  # τ of the Exam-Binary leaderboard with every item (None: undefined)
    item_effect: list[ItemEffect]  # the item whose removal raises τ most first
    grid: ItemGradeGrid


# -- Rubric-Cover@k (`studio bank cover`) -----------------------------------------------------------


class CoverRow(TypedDict):
    run: str
    value: float  # mean Rubric-Cover@k over the bank's topics


class CoverLeaderboard(TypedDict):
    """Mean Rubric-Cover@k per run, and its Kendall τ against a reference leaderboard if one is named."""

    measure: str  # Rubric-Cover@k, "(normalised)" when divided by what any document covers
    source: str  # the rubric judge's label set
    bank: str
    topics: int  # the bank's topics
    leaderboard: list[CoverRow]  # in the runs' order
    ref: NotRequired[str]  # with a reference label set only:
    ref_measure: NotRequired[str]
    kendall_tau: NotRequired[float | None]  # τ-b against `ref`'s `ref_measure` leaderboard, on `ref_topics`
    ref_topics: NotRequired[int]  # the bank's topics the reference labels (the comparison's topics)


# -- stale cells (`studio bank stale`) --------------------------------------------------------------


class StaleCellRow(TypedDict):
    """A cell (document × item) that bank edits made stale since the rubric judge graded it."""

    qid: str
    docid: str
    item_id: str
    reason: str  # edited, new or deleted


# -- making banks (`studio bank generate`, `studio bank nuggetize`) ---------------------------------


class GeneratedBank(TypedDict):
    """What generating a bank from the queries made (the last event of `generate_bank`)."""

    bank: str
    kind: str  # question, nugget or subtopic
    backend: str
    model: str
    topics: int
    items: int
    calls: int
    cache_hits: int
    topics_without_items: list[str]  # topics whose answer gave no item


@dataclass(frozen=True)
class NuggetizedTopic:
    """Progress of AutoNuggetizer: one topic's nuggets made (calls and cache hits so far, all topics)."""

    topic: str
    documents: int  # the topic's relevant documents read
    nuggets: int  # nuggets kept for the topic
    calls: int
    cache_hits: int


@dataclass(frozen=True)
class NuggetizedBank:
    """AutoNuggetizer's last event: the bank it wrote."""

    bank: str
    topics: int
    items: int
    calls: int
    cache_hits: int
    failures: int  # answers that could not be read (a list kept as it was, or importance unset)


NuggetizeEvent = NuggetizedTopic | NuggetizedBank
