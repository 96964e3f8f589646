"""Running an LLM judge over a pool of pairs into a label set: cached, resumable, with progress.

Every call is looked up in the project's call cache first; each new answer is stored, parsed
and turned into a label event in one transaction the moment it arrives, so a judge killed at
any point loses no finished call and a second run costs no call at all.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import Any

from studio.domain.errors import UsageError
from studio.domain.judging import JudgeConfig, JudgeProgress, JudgeSummary
from studio.domain.models import LabelSetKind
from studio.judges.backend import Backend, ChatResult, call_key
from studio.judges.methods import Method, get_method
from studio.services.evaluation.engine import EvaluationEngine
from studio.services.judging.answer_units import exemplar_draws, exemplar_units
from studio.services.judging.backends import make_backend
from studio.services.judging.config import rerunnable
from studio.services.judging.label_writers import write_exemplar_labels, write_own_scores, write_preference_labels
from studio.services.judging.ownership import lets_go_when_given_up
from studio.services.judging.pools import pool_pairs
from studio.services.judging.recording import OpenRun, record_answer
from studio.services.judging.samples import SelfConsistency
from studio.services.judging.stale import StalePlan, stale_plan
from studio.services.judging.tally import Tally
from studio.services.judging.timed_batches import timed_batches
from studio.services.judging.units import Unit, bank_items, build_units
from studio.services.writes.label_writes import LabelWrites
from studio.store import Database, new_batch
from studio.store import judging as judge_store
from studio.store import labels as label_store


def judge_label_set(db: Database, name: str, backend: str) -> int:
    """The label set a judge writes into, created when new; never a human or derived one."""
    con = db.cursor()
    found = label_store.label_set_id(con, name)
    if found is not None:
        info = label_store.label_set_info(con, found)
        if info and info.kind not in (LabelSetKind.LLM.value, LabelSetKind.SIMULATED.value):
            raise UsageError(f"label set {name!r} holds {info.kind} labels; a judge writes only into its own sets")
        return found
    kind_name = LabelSetKind.SIMULATED if backend == "simulated" else LabelSetKind.LLM
    with db.transaction() as tx:
        return label_store.create_label_set(tx, name, kind_name.value, f"judge:{backend}")


@dataclass
class JudgePlan:
    """What a run judges, known before a model loads or a label set is created."""

    pairs: list[tuple[str, str]]  # the pool
    units: list[Unit]  # the calls to make, one answer each (self-consistency copies them later)
    missing: list[tuple[str, str]]  # pairs without a topic or document text: recorded as failures
    stale: StalePlan | None  # with `stale_only`: the cells graded again, kept and dropped
    why_missing: dict[tuple[str, str], str] = field(default_factory=dict)  # a reason other than no text
    shown: set[tuple[str, str]] = field(default_factory=set)  # exemplar passages shown beside the answers

    @property
    def judged_pairs(self) -> int:
        """The (topic, document) pairs the run's judgments name: the pool, and the exemplars shown."""
        return len(set(self.pairs) | self.shown)


@dataclass
class Followers:
    """The derived label sets that followed a finished run's new grades, and those that could not."""

    derived: list[str]  # derived sets other than ensembles
    ensembles: list[str]
    blocked: dict[str, str]  # each set that could not follow, with the reason


@lets_go_when_given_up
def run_judge(
    db: Database,
    config: JudgeConfig,
    backend: Backend | None = None,
    *,
    stale_only: bool = False,
    writes: LabelWrites | None = None,
) -> Generator[JudgeProgress | JudgeSummary, None, None]:
    """Judge every pair of the pool, yielding progress after each call and a summary last; the
    derived label sets made from the judged set follow it at the end (through `writes`, the open
    project's write path, when given).

    With `stale_only` (a rubric judge after bank edits), only the stale cells are graded; every
    other grade of the newest run is carried over, so the new run is complete and the calls it
    costs are exactly those of the edited, added or split items.
    """
    start = time.perf_counter()
    saved_config = rerunnable(config)  # refused here, before anything is written, when it holds a secret
    method = get_method(config.method, config.prompt)
    # Reads outside transactions are marked busy: a front end that releases the file from
    # another thread (the TUI) then waits for them; the file is free while a model loads.
    with db.busy():
        plan = plan_judging(db, config, method, stale_only=stale_only)
    db.idle()
    with db.busy():
        opened = open_run(db, config, method, plan, backend or make_backend(db, config), saved_config)
        tally = Tally(done=len(plan.missing), failures=len(plan.missing))
        cached = replay_cache(db, opened, tally)
    db.idle()  # the model works with the file free for other processes
    yield tally.progress(opened.total, start)
    yield from call_model(db, opened, [key for key in opened.by_key if key not in cached], tally, start)
    with db.busy():
        followers = finish_run(db, config, opened, plan, tally, writes)
    db.idle()
    yield judge_summary(config, opened, plan, tally, followers, start)


def plan_judging(db: Database, config: JudgeConfig, method: Method, *, stale_only: bool) -> JudgePlan:
    """The pool, and a call for each of its pairs (only the stale cells' with `stale_only`)."""
    pairs = pool_pairs(db, config)
    if exemplar_draws(config):  # generated answers against exemplar passages
        found = exemplar_units(db, method, pairs, config)
        return JudgePlan(pairs, found.units, list(found.missing), None, found.missing, found.shown)
    stale = stale_plan(db, config, pairs) if stale_only else None
    # Units first: a judge that cannot run (no bank for a rubric method) is refused before it
    # loads a model or creates its label set.
    units, missing = build_units(
        db, method, pairs, config.seed, config.bank, only=stale.to_grade if stale is not None else None
    )
    return JudgePlan(pairs, units, missing, stale)


def open_run(
    db: Database, config: JudgeConfig, method: Method, plan: JudgePlan, backend: Backend, saved_config: dict[str, Any]
) -> OpenRun:
    """The run's label set and judge_runs row, with the grades it carries over and the failures
    of the pairs it cannot judge already written; every unit keyed by the call it makes."""
    params = backend.params()
    consistency = SelfConsistency(config, method, backend)
    units = consistency.expand(plan.units)
    set_id = judge_label_set(db, config.name, backend.name)
    by_key: dict[str, list[Unit]] = {}
    for unit in units:
        unit.key = call_key(backend.name, backend.model, consistency.params(params, unit), unit.request)
        by_key.setdefault(unit.key, []).append(unit)
    with db.transaction() as tx:
        run = judge_store.create_judge_run(
            tx,
            set_id,
            method=method.name,
            backend=backend.name,
            model=backend.model,
            prompt_name=method.prompt.name,
            prompt_hash=method.prompt.sha256,
            params=params | {"seed": config.seed, "config": saved_config},
            pool=config.pool,
        )
        batch = new_batch(tx, "judge", f"{config.name} run {run}")
        if plan.stale is not None:
            judge_store.copy_judgments(tx, plan.stale.previous, run, sorted(plan.stale.kept))
        for qid, docid in plan.missing:
            judge_store.add_judgment(
                tx,
                run,
                qid,
                docid,
                None,
                "",
                label=None,
                expected=None,
                confidence=None,
                parse_error=plan.why_missing.get((qid, docid), "no text for the topic or document"),
            )
    total = len(units) + len(plan.missing)
    return OpenRun(method, backend, params, consistency, set_id, run, batch, by_key, total)


def replay_cache(db: Database, opened: OpenRun, tally: Tally) -> set[str]:
    """Record the answers the call cache holds, in one transaction; the keys it answered."""
    # A call that failed for good (retries exhausted, server error) is asked again on the next
    # run; an answer that could not be parsed is not: the model would say the same.
    cached = {
        key: ChatResult(call["output"], error=call["error"], label_probs=call["label_probs"])
        for key, call in judge_store.cached_calls(db.cursor(), list(opened.by_key)).items()
        if call["output"] is not None
    }
    if cached:
        with db.transaction() as tx:
            for key, answer in cached.items():
                record_answer(tx, opened, key, answer, tally)
                tally.cache_hits += len(opened.by_key[key])
    return set(cached)


def call_model(
    db: Database, opened: OpenRun, pending: list[str], tally: Tally, start: float
) -> Iterator[JudgeProgress]:
    """Ask the backend the `pending` calls, storing each answer and yielding progress once stored."""
    backend = opened.backend
    requests = [opened.by_key[key][0].request for key in pending]
    for arrived in timed_batches(backend.complete(requests)):
        # What arrived within half a second is written in one short transaction; the file is
        # then given up until the next group, so other processes wait a few milliseconds at most.
        progress = []
        with db.transaction() as tx:
            for index, result in arrived:
                key = pending[index]
                judge_store.store_call(
                    tx,
                    key,
                    backend.name,
                    backend.model,
                    opened.params,
                    requests[index].as_json(),
                    output=result.text,
                    error=result.error,
                    label_probs=result.label_probs,
                    prompt_tokens=result.prompt_tokens,
                    completion_tokens=result.completion_tokens,
                    seconds=result.seconds,
                    cost=result.cost,
                )
                record_answer(tx, opened, key, result, tally)
                tally.called(result)
                progress.append(tally.progress(opened.total, start))
        db.idle()
        yield from progress  # reported once stored


def finish_run(
    db: Database, config: JudgeConfig, opened: OpenRun, plan: JudgePlan, tally: Tally, writes: LabelWrites | None
) -> Followers:
    """The labels made from all the run's answers (preference wins, a rubric judge's own scores),
    the derived sets that follow the label set, and the run marked finished."""
    method, run, set_id = opened.method, opened.run, opened.set_id
    if method.pairwise and exemplar_draws(config):
        write_exemplar_labels(db, run, set_id, plan.pairs, opened.batch, opened.source)
    elif method.pairwise:
        write_preference_labels(db, run, set_id, plan.pairs, opened.batch, opened.source)
    if method.own_score is not None:
        with db.transaction() as tx:
            write_own_scores(tx, method, run, set_id, opened.batch, opened.source, bank_items(db, method, config.bank))
    # The derived sets made from this label set (or its item grades) follow its new grades.
    writes = writes if writes is not None else LabelWrites(EvaluationEngine(db))
    followed = writes.written([config.name], item_grades=[config.name])
    kinds = writes.derived_kinds(followed.followed)
    followers = Followers(
        derived=[name for name, kind in kinds.items() if kind != "ensemble"],
        ensembles=[name for name, kind in kinds.items() if kind == "ensemble"],
        blocked=followed.blocked,
    )
    with db.transaction() as tx:
        judge_store.finish_judge_run(
            tx, run, pairs=plan.judged_pairs, calls=tally.calls, cache_hits=tally.cache_hits, failures=tally.failures
        )
    return followers


def judge_summary(
    config: JudgeConfig, opened: OpenRun, plan: JudgePlan, tally: Tally, followers: Followers, start: float
) -> JudgeSummary:
    """What the run did, as `studio judge` reports it."""
    method, backend, stale, consistency = opened.method, opened.backend, plan.stale, opened.consistency
    return JudgeSummary(
        label_set=config.name,
        method=method.name,
        backend=backend.name,
        model=backend.model,
        pairs=len(plan.pairs),
        calls=tally.calls,
        cache_hits=tally.cache_hits,
        failures=tally.failures,
        seconds=round(time.perf_counter() - start, 3),
        prompt_tokens=tally.prompt_tokens,
        completion_tokens=tally.completion_tokens,
        judge_run=opened.run,
        failed_calls=tally.failed_calls,
        first_failure=tally.first_failure,
        # A method that scores its own grades always says which sets followed, even none.
        derived_updated=followers.derived if method.own_score is not None or followers.derived else None,
        stale_cells=len(stale.to_grade) if stale is not None else None,
        deleted_cells=len(stale.stale) - len(stale.to_grade) if stale is not None else None,
        kept_cells=len(stale.kept) if stale is not None else None,
        samples=consistency.samples if consistency.reported else None,
        self_consistency=consistency.mode if consistency.reported else None,
        ensembles_updated=followers.ensembles or None,
        derived_blocked=followers.blocked or None,
        cost=round(tally.cost, 6) if config.price_input or config.price_output else None,
    )
