"""Asking a backend through the call cache: calls already answered cost nothing, each new answer
is stored the moment it arrives (a kill loses no finished call), progress is yielded per call.

`run_judge` keeps its own loop because it also records each judgment in the same transaction as
its call; everything else that asks a model (bank generation, answer extraction, probes) uses this.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any

from studio.domain.judging import JudgeProgress
from studio.judges.backend import Backend, ChatRequest, call_key
from studio.services.judging.timed_batches import timed_batches
from studio.store import Database
from studio.store import judging as judge_store


@dataclass
class Answers:
    """The stored call of every request (in request order by `keys`), and what it cost."""

    keys: list[str]
    calls: dict[str, dict[str, Any]]
    made: int
    cached: int

    def output(self, index: int) -> str | None:
        """The raw answer to request `index` (None when the call failed for good)."""
        found: str | None = self.calls.get(self.keys[index], {}).get("output")
        return found


def ask(db: Database, backend: Backend, requests: Sequence[ChatRequest]) -> Generator[JudgeProgress, None, Answers]:
    """Answer `requests` (`answers = yield from ask(...)`); a call that failed for good is asked again."""
    con = db.cursor()
    params = backend.params()
    keys = [call_key(backend.name, backend.model, params, r) for r in requests]
    cached = {k for k, c in judge_store.cached_calls(con, keys).items() if c["output"] is not None}
    first = {key: index for index, key in reversed(list(enumerate(keys)))}  # one call per distinct prompt
    pending = [index for key, index in first.items() if key not in cached]
    start = time.perf_counter()
    db.idle()  # the model works with the file free for other processes
    done = 0
    for batch in timed_batches(backend.complete([requests[i] for i in pending])):
        with db.transaction() as tx:  # what arrived within half a second, in one short transaction
            for position, result in batch:
                i = pending[position]
                judge_store.store_call(
                    tx,
                    keys[i],
                    backend.name,
                    backend.model,
                    params,
                    requests[i].as_json(),
                    output=result.text,
                    error=result.error,
                    label_probs=result.label_probs,
                    prompt_tokens=result.prompt_tokens,
                    completion_tokens=result.completion_tokens,
                    seconds=result.seconds,
                    cost=result.cost,
                )
        db.idle()
        for _ in batch:
            done += 1
            yield JudgeProgress(done + len(cached), len(first), done, len(cached), 0, time.perf_counter() - start)
    return Answers(keys, judge_store.cached_calls(db.cursor(), keys), len(pending), len(cached))
