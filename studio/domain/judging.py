"""A judge's configuration, its progress events and its summary."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "extra"} | self.extra

    @property
    def every_call_failed(self) -> bool:
        """The run asked for answers and got none: the server was down or refused every call."""
        return self.calls > 0 and self.failed_calls == self.calls

    def failed_calls_text(self) -> str:
        """`30 of 30 calls failed: connection refused` (the first failure's reason)."""
        return f"{self.failed_calls} of {self.calls} calls failed: {self.first_failure or 'no reason given'}"
