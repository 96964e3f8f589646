"""The rows the studio hands its front ends and scripts: what `studio list` and the screens show,
label events and review decisions, the review queue, audits and estimates.

They are TypedDicts: plain dicts at run time (so JSON output is them as they are, key order
included) whose keys strict mypy checks wherever a row is read. The store builds them from query
columns named as the keys (`studio.store.database.typed_records` checks the names).
"""

# No `from __future__ import annotations` here: TypedDict must see NotRequired[...] itself (not as a
# string) to leave those keys out of __required_keys__, which the store checks query columns against.
from typing import NotRequired, TypedDict

# -- what a project holds ---------------------------------------------------------------------------


class TopicRow(TypedDict):
    qid: str
    text: str | None  # None: the topic is known from runs or labels only
    docs: int  # pooled documents (retrieved by a run or labelled)
    judged: int  # labelled documents


class DocumentRow(TypedDict):
    docid: str
    title: str | None
    chars: int


class RunInfo(TypedDict):
    name: str
    topics: int
    rows: int
    source: str | None  # the file it was imported from


class LabelSetRow(TypedDict):
    name: str
    kind: str  # human, llm, derived, simulated (LabelSetKind)
    topics: int
    pairs: int
    relevant: int  # pairs graded above 0
    events: int  # label events: imports, judges, edits, undos
    source: str | None


class LabelSetName(TypedDict):
    """A label set's name and kind: what choosing one needs, without its counts."""

    name: str
    kind: str  # human, llm, derived, simulated (LabelSetKind)


class BankInfo(TypedDict):
    name: str
    topics: int
    items: int
    questions: int
    nuggets: int
    vital: int
    okay: int
    source: str | None


class ResponseRow(TypedDict):
    system: str
    topics: int
    mean_chars: int


class ScoreTableRow(TypedDict):
    """An imported leaderboard (a score table another tool wrote)."""

    name: str
    runs: int
    measures: int
    topics: int  # topics with per-topic values (the means' `all` left out)
    values: int
    layout: str
    source: str


class JudgeRunRow(TypedDict):
    run: int
    label_set: str
    method: str
    backend: str
    model: str
    prompt: str
    prompt_hash: str
    pool: str | None
    pairs: int | None  # None until the run finishes
    calls: int | None
    cache_hits: int | None
    failures: int | None
    started: str
    finished: str | None
    state: str  # finished, running, interrupted, running? (RunState)
    owner: str | None  # pid@host of the process that ran it


class FailureRow(TypedDict):
    qid: str
    docid: str
    docid_b: str | None  # the second document of a pairwise preference
    reason: str | None
    output: str | None  # the model's raw answer (None: no call was made)
    call_error: str | None


# -- labels, edits and decisions ---------------------------------------------------------------------


class StoredEvent(TypedDict):
    """A label event as the store writes it."""

    event: int
    qid: str
    docid: str
    grade: float | None  # None: the label was removed
    previous: float | None
    origin: str  # person, undo (edits); judge, import, derived (other writes)
    source: str | None  # who (a person) or what wrote it
    note: str | None
    undoes: int | None  # the event an undo reverts
    time: str


class LabelEvent(StoredEvent):
    """An audited label edit or undo of label set `qrels` (as `studio label` and `history` show it)."""

    qrels: str
    derived_blocked: NotRequired[dict[str, str]]  # derived sets that cannot follow the edit, and why


class Disagreement(TypedDict):
    """A pair two label sets grade differently: one place in the review queue."""

    qid: str
    docid: str
    ref_grade: float | None  # None only for a pair shown again that no longer has both grades
    grade: float | None  # the audited set's
    delta_tau: float  # Kendall τ's change if the audited pair took the reference grade
    distance: float | None  # |ref_grade − grade|
    decided: NotRequired[str | None]  # the review decision already made on the pair (action), if any
    spread: NotRequired[float | None]  # with the queue ordered by the judges' spread
    spread_range: NotRequired[float | None]


LABEL_ACTIONS = ("grade", "accept", "reference")  # review decisions that write a label event
QUEUE_ACTIONS = (*LABEL_ACTIONS, "skip")  # review decisions that take a pair out of the queue


class Decision(TypedDict):
    """One entry of the review log."""

    decision: int
    qid: str
    docid: str
    action: str  # grade, accept, reference, skip, flag, note (undo entries are not listed)
    grade: float | None
    label_event: int | None  # the label edit the decision made
    note: str | None
    person: str | None
    time: str


class JudgeOutput(TypedDict):
    """What one judge-made label set's newest run said of a pair."""

    label_set: str
    method: str
    backend: str
    model: str
    label: float | None
    confidence: float | None
    expected: float | None
    parse_error: str | None
    output: str | None
    label_probs: dict[str, float] | None


class PromptGrade(TypedDict):
    """A pair's grade in a label set a prompt study made (or imported) with one prompt."""

    label_set: str
    collection: str  # the prompt collection
    prompt_id: str
    author_group: str
    method: str
    model: str
    grade: float | None  # None: the label set does not grade the pair
    test_collection: str  # the test collection the label set judged (DL20, DL21, …)


class ItemGrade(TypedDict):
    """A rubric judge's grade of a pair for one bank item."""

    label_set: str
    method: str
    item_id: str
    grade: float | None
    answer: str | None  # the answer extracted from the document
    kind: NotRequired[str | None]
    text: NotRequired[str | None]


# -- audits and estimates ----------------------------------------------------------------------------


class AuditRow(TypedDict):
    audit: str
    qrels: str
    design: str
    strata: str | None
    units: int
    population: int
    seed: int
    done: int
    total: int
    created: str


class StratumProgress(TypedDict):
    stratum: str
    inclusion: float | None
    done: int
    total: int


class AuditProgress(TypedDict):
    audit: str
    qrels: str
    design: str
    strata: str | None
    allocation: str | None
    pilot: str | None
    units: int
    population: int
    seed: int
    created: str
    done: int
    total: int
    per_stratum: list[StratumProgress]


class AuditPair(TypedDict):
    qid: str
    docid: str
    stratum: str
    inclusion: float | None
    gold: float | None  # None until graded


# `lambda` is a keyword: the functional form names it.
EstimateRun = TypedDict(
    "EstimateRun",
    {
        "run": str,
        "estimate": float | None,
        "low": float | None,
        "high": float | None,
        "llm": float | None,
        "gold": float | None,
        "gold_low": float | None,
        "gold_high": float | None,
        "lambda": float | None,
    },
)


class RunPairEstimate(TypedDict):
    run_a: str
    run_b: str
    difference: float | None
    low: float | None
    high: float | None
    settled: bool


_EstimateFields = TypedDict(
    "_EstimateFields",
    {
        "advice": str | None,  # a word when the gold sample alone gives narrower intervals
        "qrels": str,
        "gold": str,
        "measure": str,
        "llm_measure": str,  # the measure at the LLM set's own relevance level
        "design": str,  # topics or pairs
        "level": float,
        "estimator": str,  # cross-fit, ppi, ppi++ or gold
        "power_tuning": bool,  # the LLM term's weight is fitted on the sample
        "lambda": float | None,  # the LLM term's weight, in [0, 1]
        "units": int,
        "units_qrels_lacks": int,  # units of the population the LLM set has no label for
        "gold_units": int,
        "covers": str,  # over which population the truth is defined
        "warnings": list[str],  # a label set whose grades never reach the measure's level
    },
)


class Estimate(_EstimateFields):
    """Each run's measure under full human judging, estimated from a partial gold sample."""

    runs: list[EstimateRun]
    pairs: list[RunPairEstimate]
    kendall_tau_vs_llm: float | None
