"""What a judge run has done so far: the counts its progress events and its summary report."""

from __future__ import annotations

import time
from dataclasses import dataclass

from studio.domain.judging import JudgeProgress
from studio.judges.backend import ChatResult


@dataclass
class Tally:
    done: int = 0  # units recorded, with the pairs that could not be judged
    calls: int = 0  # calls this run made (cache hits are not calls)
    cache_hits: int = 0  # units answered from the call cache
    failures: int = 0  # judgments without a label: failed calls, unparsed answers, missing texts
    failed_calls: int = 0  # calls that got no answer (refused, timed out, server errors)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0  # what the calls cost (0 without prices)
    first_failure: str | None = None  # what the backend said of the first call that got no answer

    def called(self, result: ChatResult) -> None:
        """One call of this run came back, with an answer or without."""
        self.calls += 1
        if result.text is None:
            self.failed_calls += 1
            self.first_failure = self.first_failure or result.error
        self.prompt_tokens += result.prompt_tokens
        self.completion_tokens += result.completion_tokens
        self.cost += result.cost or 0.0

    def progress(self, total: int, start: float) -> JudgeProgress:
        """The progress event of now, `start` being the run's `time.perf_counter()` at its start."""
        return JudgeProgress(self.done, total, self.calls, self.cache_hits, self.failures, time.perf_counter() - start)
