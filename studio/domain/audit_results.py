"""What the audit commands answer about a drawn sample and its assessors: the draw (`studio audit
plan --name`), an import of gold grades, the split among assessors, their agreement and conflicts,
and an adjudication; and an audit and its units as the store keeps them. The sizing, simulation and
recommendation of designs are in `audit_designs.py`.

TypedDicts, as in `rows.py`: plain dicts at run time, so the JSON the commands print is them as they
are (key order included: the order the services build them in, which is the order declared here).
"""

# No `from __future__ import annotations`: TypedDict must see NotRequired[...] itself.
from typing import NotRequired, TypedDict, final

# -- what the store keeps of an audit ----------------------------------------------------------------


class AuditRecord(TypedDict):
    """An audit as the store keeps it (`studio.store.audits`)."""

    audit_id: int
    name: str  # also its gold label set's
    label_set: str  # the audited (LLM) label set
    design: str
    strata: str | None  # grade, confidence or topic (stratified only)
    allocation: str | None  # how the budget was spread over strata (stratified and LLM-signal designs)
    pilot: str | None  # the label set a stratified draw's S_h came from
    budget: int  # units drawn
    population: int  # units of the pool
    seed: int
    created: str  # when it was drawn: YYYY-MM-DD HH:MM:SS


class AuditUnit(TypedDict):
    """A drawn unit of an audit, in the order the audit is walked in."""

    qid: str
    docid: str | None  # None: the whole topic
    stratum: str | None
    inclusion: float  # the unit's probability of being drawn
    position: int  # its place in the random order the audit is walked in


# -- the draw ----------------------------------------------------------------------------------------
# A draw's `strata_rows` describe how each design spread the budget; the row types are final so that
# a reader tells them apart by a key (`"topics" in row`), which mypy narrows on.


@final
class StratumDraw(TypedDict):
    """A stratum of a `stratified` draw."""

    stratum: str
    pairs: int  # the stratum's pairs in the pool (N_h)
    sd: float | None  # the pilot's S_h (None without a pilot: proportional allocation)
    drawn: int  # n_h
    inclusion: float  # n_h / N_h


@final
class TopicStratumDraw(TypedDict):
    """A stratum of a `topics-neyman` draw: topics by their count of LLM-relevant pairs."""

    stratum: str
    topics: int  # the stratum's topics (N_h)
    sd: float  # S_h, from the pilot or the LLM-only proxy
    drawn: int  # n_h, by Neyman's allocation
    inclusion: float  # n_h / N_h


# `from` is a keyword: the functional form names it, and the final class below adds the rest.
_DrawnFrom = TypedDict("_DrawnFrom", {"from": str})  # where the predicted errors come from


@final
class UncertaintyDraw(_DrawnFrom):
    """The inclusion probabilities of a `pairs-uncertainty` draw (its one row)."""

    min_inclusion: float
    max_inclusion: float
    uniform_inclusion: float  # the budget over the pool: every pair's π under the `pairs` design
    drawn_for_sure: int  # pairs at π = 1


StrataRow = StratumDraw | TopicStratumDraw | UncertaintyDraw


class AssessorTime(TypedDict):
    """Decisions in assessor-hours, and the seconds per decision that says so."""

    seconds_per_decision: float
    seconds_from: str  # where the seconds come from: the project's timed grades, or a stated default
    assessor_hours: float


class AuditPlan(TypedDict):
    """A drawn audit sample (`studio audit plan --name`), its pairs in assessor-hours."""

    audit: str
    qrels: str  # the LLM label set whose pool was sampled
    design: str
    strata: str | None  # what a stratified design's strata are by: grade, confidence or topic
    seed: int
    pilot: NotRequired[str | None]  # stratified only: where S_h came from (None: no pilot)
    pilot_pairs: NotRequired[int]  # stratified only: the pilot's pairs of the pool
    allocation: str | None  # how the budget was spread over strata or π set (None: `topics`, `pairs`)
    units: int  # topics or pairs drawn
    population: int  # topics or pairs of the pool
    pairs: int  # pairs to grade (a whole topic's pairs for a topic design)
    strata_rows: list[StrataRow]  # empty for `topics` and `pairs`
    # AssessorTime's keys, for `pairs`:
    seconds_per_decision: float
    seconds_from: str
    assessor_hours: float


class PilotUsed(TypedDict, total=False):
    """The pilot keys of a stratified draw (an empty dict for the other designs)."""

    pilot: str | None
    pilot_pairs: int


# -- gold grades and assessors -------------------------------------------------------------------------


class GradingProgress(TypedDict):
    done: int  # pairs of the sample graded
    total: int  # pairs of the sample


class GradedBy(TypedDict, total=False):
    """The assessor key of an import with --assessor (an empty dict without)."""

    assessor: str


class GoldImport(TypedDict):
    """Gold grades imported for an audit's sample (`studio audit import`)."""

    audit: str
    assessor: NotRequired[str]  # with --assessor: whose grades these are
    file: str
    lines: int
    labels_written: int  # lines that changed a gold grade (every line, with --assessor)
    # GradingProgress's keys, after the import:
    done: int
    total: int


class AssessorShare(TypedDict):
    assessor: str
    pairs: int  # pairs given to the assessor
    shared: int  # of them, pairs also given to another assessor


class Assignment(TypedDict):
    """An audit's sample split among assessors (`studio audit assign`)."""

    audit: str
    assessors: str  # their names, comma-separated
    pairs: int  # pairs of the sample
    shared_pairs: int  # pairs given to two assessors
    overlap: float  # shared_pairs / pairs
    assignments: int  # (pair, assessor) rows: pairs + shared_pairs
    seed: int
    per_assessor: list[AssessorShare]


class CoupleAgreement(TypedDict):
    """Two assessors' agreement on the pairs both graded (κ None: no such pair, or κ undefined)."""

    assessor_a: str
    assessor_b: str
    pairs: int  # pairs both graded
    agreeing: int  # of them, pairs they gave the same grade
    kappa: float | None  # Cohen's κ, unweighted
    kappa_linear: float | None  # weighted linearly
    kappa_quadratic: float | None  # weighted quadratically


class Conflict(TypedDict):
    """A pair its assessors grade differently, not adjudicated yet."""

    qid: str
    docid: str
    grades: dict[str, float]  # each assessor's grade, by name
    gold: float  # the pair's gold grade until adjudicated: the mean of its assessors'


class AssessorAgreement(TypedDict):
    """How far an audit's assessors agree (`studio audit agreement`)."""

    audit: str
    assessors: list[str]
    overlap_pairs: int  # pairs graded by more than one assessor
    krippendorff_alpha: float | None  # ordinal, over all assessors (None: no shared pair)
    couples: list[CoupleAgreement]
    conflicts: list[Conflict]
    adjudicated: int  # pairs someone adjudicated


class Adjudication(TypedDict):
    """An adjudicated grade, now the pair's gold grade (`studio audit adjudicate`)."""

    audit: str
    qid: str
    docid: str
    grade: float
    previous: float | None  # the gold grade before
    was_conflict: bool  # the assessors' grades differed
    assessors: str | None  # each assessor's grade before, "name grade, …" (None: nobody had graded it)
    event: int  # the label event that wrote the gold grade
