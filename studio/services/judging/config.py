"""A judge's configuration, its progress events and its summary, and how a run is configured again."""

from __future__ import annotations

import json
from typing import Any

from studio.domain.errors import UsageError
from studio.domain.judging import JudgeConfig
from studio.judges.endpoints import refuse_credentials
from studio.store import Connection, Database
from studio.store import judging as judge_store
from studio.store import labels as label_store

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
    "answers",
    "exemplars",
    "position_bias",
)


def rerunnable(config: JudgeConfig) -> dict[str, Any]:
    """The part of a configuration a judge run keeps, to be run again as it was; a base URL holding
    a credential is refused, so that no key ever reaches the project file."""
    refuse_credentials(config.base_url, config.api_key_env)
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
