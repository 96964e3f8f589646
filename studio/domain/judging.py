"""A judge's configuration, its progress events and its summary."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from studio.domain.judge_results import JudgeSummaryDict

# The keys `studio judge -f json` leaves out while their field is None (see JudgeSummary.as_dict).
SOMETIMES_SHOWN = JudgeSummaryDict.__optional_keys__


@dataclass
class JudgeConfig:
    method: str
    backend: str
    name: str
    pool: str = "qrels:human"
    model: str | None = None
    prompt: str | None = None
    topics: list[str] | None = None
    limit: int | None = None
    ref: str = "human"
    kappa: float = 0.6
    seed: int = 0
    # The simulated judge's "relevant" on a two-label (binary) method: the reference's grade at
    # and above which it answers relevant, the level the report binarises the reference at (None:
    # the nearest label to the grade).
    ref_relevant: float | None = None
    threads: int | None = None
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = 4
    timeout: float = 60.0
    retries: int = 5
    price_input: float | None = None
    price_output: float | None = None
    bank: str | None = None  # the test bank a rubric method grades with
    constrain: str = "auto"  # how the openai backend constrains answers (judges.constraints)
    samples: int = 1  # answers per pair (self-consistency, services.judging.samples)
    temperature: float | None = None  # of the sampled answers (None: samples.DEFAULT_TEMPERATURE)
    answers: bool = False  # judge the generated answers with the answer methods (`judge --answers`)
    exemplars: str | None = None  # answers against the ref's Best passages: one (drawn) or all
    position_bias: float = 0.0  # the simulated judge: how often it picks the passage shown first


@dataclass
class JudgeProgress:
    done: int
    total: int
    calls: int
    cache_hits: int
    failures: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.done / self.seconds if self.seconds > 0 else 0.0

    @property
    def eta(self) -> float | None:
        return (self.total - self.done) / self.rate if self.rate > 0 else None


@dataclass
class JudgeSummary:
    label_set: str
    method: str
    backend: str
    model: str
    pairs: int
    calls: int
    cache_hits: int
    failures: int
    seconds: float
    prompt_tokens: int
    completion_tokens: int
    judge_run: int = 0
    failed_calls: int = 0  # calls of this run that got no answer (refused, timed out, server errors)
    first_failure: str | None = None  # why the first of them failed, in the backend's words
    # What applies to some runs only (None: it does not apply, and the JSON leaves the key out):
    derived_updated: list[str] | None = None  # derived sets (not ensembles) that followed the run
    stale_cells: int | None = None  # `stale_only`: cells graded again
    deleted_cells: int | None = None  # `stale_only`: cells of deleted items, dropped
    kept_cells: int | None = None  # `stale_only`: grades carried over from the previous run
    samples: int | None = None  # self-consistency: answers per pair
    self_consistency: str | None = None  # self-consistency: "samples" or "label distribution"
    ensembles_updated: list[str] | None = None  # ensembles that followed the run
    derived_blocked: dict[str, str] | None = None  # derived sets that could not follow, and why
    cost: float | None = None  # with prices given: what the calls cost
    ref: str | None = None  # the embedding judge: the label set its exemplars come from
    # `--answers` subtopic whose bank was generated now: topics the model gave no subtopic for (only the query).
    topics_without_subtopics: list[str] | None = None

    def as_dict(self) -> JudgeSummaryDict:
        """What `studio judge -f json` prints: every field in order, those of SOMETIMES_SHOWN only when set."""
        # The field names are the TypedDict's keys (a test holds the two together, types included).
        shown = {key: value for key, value in vars(self).items() if value is not None or key not in SOMETIMES_SHOWN}
        return cast(JudgeSummaryDict, shown)

    @property
    def every_call_failed(self) -> bool:
        """The run asked for answers and got none: the server was down or refused every call."""
        return self.calls > 0 and self.failed_calls == self.calls

    def failed_calls_text(self) -> str:
        """`30 of 30 calls failed: connection refused` (the first failure's reason)."""
        return f"{self.failed_calls} of {self.calls} calls failed: {self.first_failure or 'no reason given'}"
