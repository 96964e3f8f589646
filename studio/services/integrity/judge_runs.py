"""Judge runs: each has a state, and a finished run's counts agree with the judgments it holds.

Only the end of a run is written (`finished_at` with its counts, in one statement); running and
interrupted are read from the process that created the run. So a run killed at any point holds
the judgments of the calls it finished and no counts, and reads as interrupted; judging its label
set again resumes from the call cache.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from studio.domain.check_report import CheckResult
from studio.domain.choices import JudgeMethod, JudgeRunState
from studio.domain.errors import UsageError
from studio.judges.methods import get_method
from studio.store.processes import run_state

COUNTS = ("pairs", "calls", "cache_hits", "failures")


@cache
def one_judgment_per_pair(method: str) -> bool | None:
    """Whether the method judges each pair once as a whole (None: a method the studio does not know)."""
    if method == JudgeMethod.embedding:
        return True
    try:
        found = get_method(method)
    except UsageError:
        return None
    return not found.pairwise and found.item_kind is None


def check_judge_runs(facts: list[dict[str, Any]], result: CheckResult) -> tuple[dict[str, int], list[str]]:
    """Problems of the runs' records into `result`; (runs by state, notes on unfinished runs)."""
    states = {state.value: 0 for state in JudgeRunState}
    notes = []
    for run in facts:
        state = run_state(run["finished"], run["stopped"], run["owner_pid"], run["owner_host"], run["owner_started"])
        states[state.value] += 1
        name = f"judge run {run['run']} ({run['label_set']})"
        if state is JudgeRunState.finished:
            _finished(run, name, result)
        else:
            if any(run[count] is not None for count in COUNTS):
                result.problem(f"{name} has counts but no end: its finish is half written")
            notes.append(_unfinished_note(run, name, state))
    result.checked += len(facts)
    return states, notes


def _finished(run: dict[str, Any], name: str, result: CheckResult) -> None:
    missing = [count for count in COUNTS if run[count] is None or run[count] < 0]
    if missing:
        result.problem(f"{name} is finished without a count of {', '.join(missing)}")
        return
    if run["failures"] > run["unlabelled"]:
        result.problem(
            f"{name} counts {run['failures']} failures but holds {run['unlabelled']} judgments without a label"
        )
    # Every call made and every cached answer was recorded as judgments of that call (the
    # embedding judge counts texts encoded instead: its judgments make no call).
    if run["method"] != JudgeMethod.embedding and run["calls"] + run["cache_hits"] > run["with_call"]:
        result.problem(
            f"{name} counts {run['calls']} calls and {run['cache_hits']} cached answers but holds "
            f"{run['with_call']} judgments of a call"
        )
    if run["judged_pairs"] > run["pairs"]:
        result.problem(f"{name} counts {run['pairs']} pairs but judged {run['judged_pairs']}")
    elif (
        one_judgment_per_pair(run["method"])
        and not run["per_item"]
        and not run["preferences"]
        and run["judgments"] != run["pairs"]
    ):
        result.problem(f"{name} counts {run['pairs']} pairs but holds {run['judgments']} judgments")


def _unfinished_note(run: dict[str, Any], name: str, state: JudgeRunState) -> str:
    held = f"{run['judgments']} judgments kept"
    if state is JudgeRunState.running:
        return f"{name} is running (process {run['owner_pid']}): {held} so far"
    if state is JudgeRunState.elsewhere:
        return (
            f"{name} was started on {run['owner_host']} (process {run['owner_pid']}), which this machine "
            f"cannot see: running there, or interrupted; {held}"
        )
    return f"{name} was interrupted: {held}; judging {run['label_set']} again resumes from the call cache"
