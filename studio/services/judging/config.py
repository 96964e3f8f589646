"""A judge's configuration, its progress events and its summary, and how a run is configured again."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from studio.domain.errors import UsageError
from studio.store import Connection, Database
from studio.store import judging as judge_store
from studio.store import labels as label_store


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
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "extra"} | self.extra


# What `--stale` needs to run a judge again as it was: everything but secrets and the name.
RERUN_FIELDS = (
    "method",
    "backend",
    "pool",
    "model",
    "prompt",
    "topics",
    "limit",
    "ref",
    "kappa",
    "seed",
    "threads",
    "base_url",
    "api_key_env",
    "concurrency",
    "timeout",
    "retries",
    "bank",
    "constrain",
    "samples",
    "temperature",
)


def rerunnable(config: JudgeConfig) -> dict[str, Any]:
    """The part of a configuration a judge run keeps, to be run again as it was."""
    return {name: getattr(config, name) for name in RERUN_FIELDS}


def newest_run(con: Connection, label_set: str) -> tuple[int, str, str]:
    """(judge run id, method, parameters as JSON) of the label set's newest judge run."""
    set_id = label_store.label_set_id(con, label_set)
    if set_id is None:
        raise UsageError(f"no label set named {label_set!r}")
    newest = judge_store.newest_judge_run(con, set_id)
    if newest is None:
        raise UsageError(f"label set {label_set!r} was not made by a judge")
    return newest


def last_config(db: Database, label_set: str) -> JudgeConfig:
    """The configuration of the label set's newest judge run, to run it again.

    Re-running costs exactly the calls whose prompt changed: an edited bank item renders a new
    prompt (a cache miss) while every untouched cell is a cache hit, so only stale cells are graded.
    """
    saved = json.loads(newest_run(db.cursor(), label_set)[2]).get("config")
    if not saved:
        raise UsageError(f"the newest judge run of {label_set!r} predates re-runnable configurations")
    # A run saved before answers could be constrained made its calls unconstrained.
    return JudgeConfig(name=label_set, **({"constrain": "none"} | saved))
