"""Running an LLM judge over a pool of pairs into a label set: cached, resumable, with progress.

Every call is looked up in the project's call cache first; each new answer is stored, parsed
and turned into a label event in one transaction the moment it arrives, so a judge killed at
any point loses no finished call and a second run costs no call at all.
"""

from __future__ import annotations

import time
from collections.abc import Generator
from typing import Any

from studio.domain.errors import UsageError
from studio.domain.judging import JudgeConfig, JudgeProgress, JudgeSummary
from studio.domain.models import LabelSetKind
from studio.judges.backend import Backend, call_key
from studio.judges.methods import Method, get_method
from studio.judges.parsing import Parsed
from studio.services.evaluation.engine import EvaluationEngine
from studio.services.judging.backends import make_backend
from studio.services.judging.config import rerunnable
from studio.services.judging.label_writers import write_own_scores, write_preference_labels
from studio.services.judging.ownership import lets_go_when_given_up
from studio.services.judging.pools import pool_pairs
from studio.services.judging.samples import SelfConsistency
from studio.services.judging.stale import stale_plan
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


def _outcome(
    method: Method, output: str | None, error: str | None, probs: dict[str, float] | None
) -> tuple[Parsed, float | None, float | None]:
    if output is None:
        return Parsed(None, f"call failed: {error}"), None, None
    parsed = method.parse(output)
    if not probs:
        return parsed, None, None
    known = {label: p for label, p in probs.items() if label in method.labels}
    expected = sum(method.value_of(label) * p for label, p in known.items()) if known else None
    confidence = max(known.values()) if known else None
    return parsed, expected, confidence


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
        pairs = pool_pairs(db, config)
        plan = stale_plan(db, config, pairs) if stale_only else None
        # Units first: a judge that cannot run (no bank for a rubric method) is refused before it
        # loads a model or creates its label set.
        units, missing = build_units(
            db, method, pairs, config.seed, config.bank, only=plan.to_grade if plan is not None else None
        )
    db.idle()
    with db.busy():
        backend = backend or make_backend(db, config)
        params = backend.params()
        consistency = SelfConsistency(config, method, backend)
        units = consistency.expand(units)
        set_id = judge_label_set(db, config.name, backend.name)
        for unit in units:
            unit.key = call_key(backend.name, backend.model, consistency.params(params, unit), unit.request)
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
            if plan is not None:
                judge_store.copy_judgments(tx, plan.previous, run, sorted(plan.kept))
            for qid, docid in missing:
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
                    parse_error="no text for the topic or document",
                )
        source = f"judge run {run}"
        by_key: dict[str, list[Unit]] = {}
        for unit in units:
            by_key.setdefault(unit.key, []).append(unit)
        total = len(units) + len(missing)
        stats = {"done": len(missing), "calls": 0, "hits": 0, "failures": len(missing), "prompt": 0, "completion": 0}
        stats["failed_calls"] = 0
        first_failure: str | None = None  # what the backend said of the first call that got no answer
        cost = 0.0

        def record(tx: Any, key: str, output: str | None, error: str | None, probs: dict[str, float] | None) -> None:
            for unit in by_key[key]:
                stats["done"] += 1
                outcomes: list[tuple[str | None, Parsed, float | None, float | None]]
                if unit.window and method.parse_window is not None:  # window units come from window methods
                    failed = [Parsed(None, f"call failed: {error}")] * len(unit.window)
                    window_parsed = method.parse_window(output, len(unit.window)) if output is not None else failed
                    outcomes = [
                        (item, parsed, None, None) for item, parsed in zip(unit.window, window_parsed, strict=True)
                    ]
                else:
                    outcomes = [(unit.item_id, *_outcome(method, output, error, probs))]
                hashes = unit.item_hashes or (None,) * len(outcomes)
                for (item_id, parsed, expected, confidence), item_hash in zip(outcomes, hashes, strict=True):
                    label = parsed.label
                    judge_store.add_judgment(
                        tx,
                        run,
                        unit.qid,
                        unit.docid,
                        unit.docid_b,
                        key,
                        label=label,
                        parse_error=parsed.error,
                        expected=expected,
                        confidence=confidence,
                        item_id=item_id,
                        item_hash=item_hash,
                        sample=unit.sample,
                    )
                    if label is None:
                        stats["failures"] += 1
                    elif (
                        not method.pairwise
                        and method.item_kind is None
                        and not consistency.sampling
                        and label_store.current_grade(tx, set_id, unit.qid, unit.docid) != label
                    ):
                        label_store.append_label_event(
                            tx, set_id, unit.qid, unit.docid, label, origin="judge", source=source, batch_id=batch
                        )
                    consistency.record(tx, set_id, method, unit, label, probs, source=source, batch=batch)

        # A call that failed for good (retries exhausted, server error) is asked again on the next
        # run; an answer that could not be parsed is not: the model would say the same.
        cached = {
            key: call
            for key, call in judge_store.cached_calls(db.cursor(), list(by_key)).items()
            if call["output"] is not None
        }
        if cached:
            with db.transaction() as tx:
                for key, call in cached.items():
                    record(tx, key, call["output"], call["error"], call["label_probs"])
                    stats["hits"] += len(by_key[key])
    db.idle()  # the model works with the file free for other processes
    yield JudgeProgress(stats["done"], total, 0, stats["hits"], stats["failures"], time.perf_counter() - start)

    pending = [key for key in by_key if key not in cached]
    requests = [by_key[key][0].request for key in pending]
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
                    params,
                    requests[index].as_json(),
                    output=result.text,
                    error=result.error,
                    label_probs=result.label_probs,
                    prompt_tokens=result.prompt_tokens,
                    completion_tokens=result.completion_tokens,
                    seconds=result.seconds,
                    cost=result.cost,
                )
                record(tx, key, result.text, result.error, result.label_probs)
                stats["calls"] += 1
                if result.text is None:
                    stats["failed_calls"] += 1
                    first_failure = first_failure or result.error
                stats["prompt"] += result.prompt_tokens
                stats["completion"] += result.completion_tokens
                cost += result.cost or 0.0
                progress.append(
                    JudgeProgress(
                        stats["done"],
                        total,
                        stats["calls"],
                        stats["hits"],
                        stats["failures"],
                        time.perf_counter() - start,
                    )
                )
        db.idle()
        yield from progress  # reported once stored
    with db.busy():
        if method.pairwise:
            write_preference_labels(db, run, set_id, pairs, batch, source)
        if method.own_score is not None:
            with db.transaction() as tx:
                write_own_scores(tx, method, run, set_id, batch, source, bank_items(db, method, config.bank))
        # The derived sets made from this label set (or its item grades) follow its new grades.
        writes = writes if writes is not None else LabelWrites(EvaluationEngine(db))
        followed = writes.written([config.name], item_grades=[config.name])
        kinds = writes.derived_kinds(followed.followed)
        followers = [name for name, kind in kinds.items() if kind != "ensemble"]
        ensembles = [name for name, kind in kinds.items() if kind == "ensemble"]
        with db.transaction() as tx:
            judge_store.finish_judge_run(
                tx, run, pairs=len(pairs), calls=stats["calls"], cache_hits=stats["hits"], failures=stats["failures"]
            )
    db.idle()
    yield JudgeSummary(
        label_set=config.name,
        method=method.name,
        backend=backend.name,
        model=backend.model,
        pairs=len(pairs),
        calls=stats["calls"],
        cache_hits=stats["hits"],
        failures=stats["failures"],
        seconds=round(time.perf_counter() - start, 3),
        prompt_tokens=stats["prompt"],
        completion_tokens=stats["completion"],
        judge_run=run,
        failed_calls=stats["failed_calls"],
        first_failure=first_failure,
        # A method that scores its own grades always says which sets followed, even none.
        derived_updated=followers if method.own_score is not None or followers else None,
        stale_cells=len(plan.to_grade) if plan is not None else None,
        deleted_cells=len(plan.stale) - len(plan.to_grade) if plan is not None else None,
        kept_cells=len(plan.kept) if plan is not None else None,
        samples=consistency.samples if consistency.reported else None,
        self_consistency=consistency.mode if consistency.reported else None,
        ensembles_updated=ensembles or None,
        derived_blocked=followed.blocked or None,
        cost=round(cost, 6) if config.price_input or config.price_output else None,
    )
