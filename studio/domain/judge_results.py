"""What the judge facade hands back: a judge run's summary as `studio judge -f json` prints it, the
counts of re-parsing, Batch imports and answer extraction, grading verification, prompt
sensitivity and robustness probes.

TypedDicts, as in `rows.py`: plain dicts at run time (JSON as they are, key order included) whose
keys strict mypy checks wherever they are read.
"""

# No `from __future__ import annotations`: TypedDict must see NotRequired[...] itself, and
# `JudgeSummary.as_dict` leaves out the keys `__optional_keys__` names when they are unset.
from typing import NotRequired, TypedDict

# -- running a judge --------------------------------------------------------------------------------


class JudgeSummaryDict(TypedDict):
    """`studio judge -f json` (DESIGN §4): a judge run's summary; keys in `JudgeSummary`'s field order."""

    label_set: str
    method: str
    backend: str
    model: str
    pairs: int
    calls: int  # model calls made (the embedding judge: texts encoded)
    cache_hits: int
    failures: int  # judgments without a label (unparsable answers, failed calls, missing texts)
    seconds: float
    prompt_tokens: int
    completion_tokens: int
    judge_run: int
    failed_calls: int  # calls that got no answer (refused, timed out, server errors)
    first_failure: str | None  # why the first of them failed, in the backend's words
    # Present only where they apply, as they were before they became fields:
    derived_updated: NotRequired[list[str]]  # derived sets (not ensembles) that followed the run
    stale_cells: NotRequired[int]  # `--stale`: cells graded again
    deleted_cells: NotRequired[int]  # `--stale`: cells of deleted items, dropped
    kept_cells: NotRequired[int]  # `--stale`: grades carried over from the previous run
    samples: NotRequired[int]  # `--samples` > 1: answers per pair
    self_consistency: NotRequired[str]  # `--samples` > 1: "samples" or "label distribution"
    ensembles_updated: NotRequired[list[str]]  # ensembles that followed the run
    derived_blocked: NotRequired[dict[str, str]]  # derived sets that could not follow, and why
    cost: NotRequired[float]  # with prices given: what the calls cost
    ref: NotRequired[str]  # the embedding judge: the label set its exemplars come from
    topics_without_subtopics: NotRequired[list[str]]  # `--answers` subtopic: a bank generated with the query alone


class ReparseCounts(TypedDict):
    """`studio judges reparse`: a judge run read again from its stored outputs."""

    judgments: int  # judgments that had a call behind them
    changed: int  # judgments whose label the current parser reads differently
    failures: int  # judgments without a label now


class BatchImportCounts(TypedDict):
    """`studio judges import-batch`: the lines of an OpenAI Batch output file, by what became of them."""

    lines: int
    answers: int  # stored as answers
    failures: int  # stored as failed calls
    unknown: int  # lines of another job (no request of this judge has their custom_id)
    already_cached: int  # failures left out: the cache already holds an answer


# -- grading verification ---------------------------------------------------------------------------


class ExtractedAnswers(TypedDict):
    """`studio judges extract-answers`: answers extracted for a rubric judge's item grades."""

    judgments: int  # item judgments an answer was extracted for
    calls: int
    cache_hits: int


class VerificationRow(TypedDict):
    """`studio judges verify`: one document's grade for one item, with the answer extracted from it."""

    item_id: str
    qid: str
    docid: str
    grade: float | None  # None: the judge's answer could not be read
    answer: str | None  # None: no answer extracted yet


# -- robustness probes -------------------------------------------------------------------------------


class ProbeSummary(TypedDict):
    """How far a judge's labels moved on keyword-stuffed non-relevant passages (Alaofi et al. 2024).
    The means and shares are None when no document kept a label before and after."""

    label_set: str
    method: str
    model: str
    documents: int  # probed documents
    failures: int  # documents without a label before or after
    mean_original: float | None
    mean_perturbed: float | None
    mean_shift: float | None  # mean of (after − before)
    moved_up: float | None  # share of documents whose label went up
    became_relevant: float | None  # share that crossed `relevant_at` upwards
    relevant_at: float  # the label scale's usual threshold


class ProbeRun(ProbeSummary):
    """`studio probe`: a probe's summary with what its calls cost."""

    calls: int
    cache_hits: int


class StuffingEffect(TypedDict):
    """One perturbation at one position: how often it flipped the judge (Alaofi et al. 2024)."""

    perturbation: str  # query | claim | both
    position: str  # start | middle | end
    documents: int  # passages (pointwise) or pairs (pairwise) probed
    failures: int  # of them, those without an answer before or after
    flipped: int
    flip_rate: float | None
    low: float | None  # 95% Wilson interval of the flip rate
    high: float | None
    kendall_tau: float | None  # the judge's leaderboard against itself with the flipped labels
    runs_rising: list[str]  # the runs that rise in it, best first


class StuffingProbe(TypedDict):
    """`studio probe --separate`: every perturbation on its own, for one judge."""

    label_set: str
    method: str
    model: str
    effects: list[StuffingEffect]
