"""Running an LLM judge over a pool of pairs into a label set: cached, resumable, with progress.

Every call is looked up in the project's call cache first; each new answer is stored, parsed
and turned into a label event in one transaction the moment it arrives, so a judge killed at
any point loses no finished call and a second run costs no call at all.
"""

from __future__ import annotations

import time
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

from studio.banks.derived import DEFAULT_MIN_GRADE
from studio.banks.stale import Cell, StaleCell, kept_cells, stale_cells
from studio.domain.errors import UsageError
from studio.domain.models import BankItem, LabelSetKind, item_text_hash
from studio.judges.backend import Backend, ChatRequest, call_key
from studio.judges.methods import Method, get_method, pairwise_scores, sample_pairs
from studio.judges.parsing import Parsed
from studio.services.derive import refresh_derived, scores_of
from studio.store import Connection, Database, new_batch, pools
from studio.store import banks as bank_store
from studio.store import judging as judge_store
from studio.store import labels as label_store
from studio.store.evaluation import load_labels


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


@dataclass
class Unit:
    """One call to make: the judged (qid, docid[, docid_b]) and its request."""

    qid: str
    docid: str
    docid_b: str | None
    request: ChatRequest
    key: str = ""
    item_id: str | None = None
    window: tuple[str, ...] = ()  # the item ids a window method labels in this call
    item_hashes: tuple[str, ...] = ()  # md5 of each graded item's text (the window's, or the one item's)


def pool_pairs(db: Database, config: JudgeConfig) -> list[tuple[str, str]]:
    """The pairs a pool names: qrels:NAME, runs:K, holes:K (top-K no reference label covers), responses."""
    con = db.cursor()
    kind, _, argument = config.pool.partition(":")
    if kind == "qrels":
        set_id = label_store.label_set_id(con, argument or config.ref)
        if set_id is None:
            raise UsageError(f"no label set named {argument or config.ref!r} for the pool")
        pairs = pools.labelled_pairs(con, set_id)
    elif kind in ("runs", "holes"):
        try:
            depth = int(argument)
        except ValueError:
            raise UsageError(f"pool {config.pool!r}: give a depth, e.g. {kind}:10") from None
        pairs = pools.top_ranked_pairs(con, depth)
        if kind == "holes":
            ref_id = label_store.label_set_id(con, config.ref)
            if ref_id is None:
                raise UsageError(f"no reference label set {config.ref!r} to find holes in")
            covered = set(pools.labelled_pairs(con, ref_id))
            pairs = [p for p in pairs if p not in covered]
    elif kind == "responses":
        pairs = pools.response_pairs(con)
    else:
        raise UsageError(f"unknown pool {config.pool!r} (qrels:NAME, runs:K, holes:K, responses)")
    if config.topics:
        wanted = set(config.topics)
        pairs = [p for p in pairs if p[0] in wanted]
    return pairs[: config.limit] if config.limit is not None else pairs


def make_backend(db: Database, config: JudgeConfig) -> Backend:
    if config.backend == "llamacpp":
        from studio.judges.llamacpp_backend import LlamaCppBackend

        return LlamaCppBackend(config.model, threads=config.threads, seed=config.seed)
    if config.backend == "simulated":
        from studio.judges.simulated import SimulatedBackend

        ref_id = label_store.label_set_id(db.cursor(), config.ref)
        if ref_id is None:
            raise UsageError(f"the simulated judge copies a label set: no {config.ref!r}")
        return SimulatedBackend(config.ref, load_labels(db.cursor(), ref_id), kappa=config.kappa, seed=config.seed)
    if config.backend == "openai":
        from studio.judges.openai_backend import OpenAIBackend

        if not config.model:
            raise UsageError("the openai backend needs --model")
        return OpenAIBackend(
            config.model, base_url=config.base_url, api_key_env=config.api_key_env,
            concurrency=config.concurrency, timeout=config.timeout, max_retries=config.retries, seed=config.seed,
            price_input=config.price_input, price_output=config.price_output,
        )
    raise UsageError(f"unknown backend {config.backend!r} (llamacpp, openai, simulated)")


def build_units(
    db: Database, method: Method, pairs: list[tuple[str, str]], seed: int, bank: str | None = None,
    only: set[Cell] | None = None,
) -> tuple[list[Unit], list[tuple[str, str]]]:
    """Requests for every pair (both orders of sampled document pairs for preferences), and the
    pairs that cannot be judged because a text is missing. `only` keeps a rubric method to
    those (qid, docid, item) cells."""
    con = db.cursor()
    queries = pools.topic_texts(con, [q for q, _ in pairs])
    passages = pools.passage_texts(con, pairs)
    missing = [p for p in pairs if p[0] not in queries or p not in passages]
    usable = [p for p in pairs if p[0] in queries and p in passages]
    units: list[Unit] = []
    if method.item_kind is not None:
        return _item_units(method, usable, queries, passages, bank_items(db, method, bank), only), missing
    if not method.pairwise:
        for qid, docid in usable:
            request = method.request((qid, docid), query=queries[qid], passage=passages[(qid, docid)])
            units.append(Unit(qid, docid, None, request))
        return units, missing
    by_topic: dict[str, list[str]] = {}
    for qid, docid in usable:
        by_topic.setdefault(qid, []).append(docid)
    for qid, docids in by_topic.items():
        for a, b in sample_pairs(docids, seed=seed, qid=qid):
            for first, second in ((a, b), (b, a)):
                request = method.request((qid, first, second), query=queries[qid],
                                         passage_a=passages[(qid, first)], passage_b=passages[(qid, second)])
                units.append(Unit(qid, first, second, request))
    return units, missing


def bank_items(db: Database, method: Method, bank: str | None) -> list[BankItem]:
    """The current items of `bank` that `method` grades (those of its item kind)."""
    if bank is None:
        raise UsageError(f"{method.name} grades with a test bank: give --bank NAME")
    bank_id = bank_store.bank_id(db.cursor(), bank)
    if bank_id is None:
        raise UsageError(f"no bank named {bank!r} (see `studio list banks`)")
    return [item for item in bank_store.current_items(db.cursor(), bank_id) if item.kind == method.item_kind]


def _item_units(
    method: Method, pairs: list[tuple[str, str]], queries: dict[str, str],
    passages: dict[tuple[str, str], str], items: list[BankItem], only: set[Cell] | None,
) -> list[Unit]:
    """One request per (pair, bank item of the method's kind) of the pair's topic, or per window
    of up to `method.window` items for methods that label a list at once."""
    by_topic: dict[str, list[BankItem]] = {}
    for item in items:
        by_topic.setdefault(item.qid, []).append(item)
    assert method.item_kind is not None
    units = []
    for qid, docid in pairs:
        topic_items = [i for i in by_topic.get(qid, []) if only is None or (qid, docid, i.item_id) in only]
        if method.window is not None:
            for start in range(0, len(topic_items), method.window):
                window = topic_items[start : start + method.window]
                request = method.request(
                    (qid, docid, *(i.item_id for i in window)), query=queries[qid],
                    context=passages[(qid, docid)], nuggets=repr([i.text for i in window]),
                    num_nuggets=str(len(window)),
                )
                units.append(Unit(qid, docid, None, request, window=tuple(i.item_id for i in window),
                                  item_hashes=tuple(item_text_hash(i.text) for i in window)))
            continue
        for item in topic_items:
            request = method.request((qid, docid, item.item_id), query=queries[qid],
                                     **{method.item_kind: item.text, "passage": passages[(qid, docid)]})
            units.append(Unit(qid, docid, None, request, item_id=item.item_id,
                              item_hashes=(item_text_hash(item.text),)))
    return units


def judge_label_set(db: Database, name: str, backend: str) -> int:
    """The label set a judge writes into, created when new; never a human or derived one."""
    con = db.cursor()
    found = label_store.label_set_id(con, name)
    if found is not None:
        kind = con.execute("SELECT kind FROM label_sets WHERE label_set_id = ?", [found]).fetchone()
        if kind and kind[0] not in (LabelSetKind.LLM.value, LabelSetKind.SIMULATED.value):
            raise UsageError(f"label set {name!r} holds {kind[0]} labels; a judge writes only into its own sets")
        return found
    kind_name = LabelSetKind.SIMULATED if backend == "simulated" else LabelSetKind.LLM
    with db.transaction() as tx:
        return label_store.create_label_set(tx, name, kind_name.value, f"judge:{backend}")


def _outcome(method: Method, output: str | None, error: str | None,
             probs: dict[str, float] | None) -> tuple[Parsed, float | None, float | None]:
    if output is None:
        return Parsed(None, f"call failed: {error}"), None, None
    parsed = method.parse(output)
    if not probs:
        return parsed, None, None
    known = {label: p for label, p in probs.items() if label in method.labels}
    expected = sum(method.value_of(label) * p for label, p in known.items()) if known else None
    confidence = max(known.values()) if known else None
    return parsed, expected, confidence


@dataclass
class StalePlan:
    """What `--stale` does: grade the `stale` cells, carry the `kept` ones over from `previous`."""

    previous: int
    stale: list[StaleCell]
    kept: set[Cell]

    @property
    def to_grade(self) -> set[Cell]:
        return {(c.qid, c.docid, c.item_id) for c in self.stale if c.reason != "deleted"}


def stale_plan(db: Database, config: JudgeConfig, pairs: list[tuple[str, str]] | None = None) -> StalePlan:
    """The stale cells of the label set's newest rubric judge run under the bank's current items."""
    method = get_method(config.method, config.prompt)
    if method.item_kind is None:
        raise UsageError(f"{method.name} does not grade with a test bank: nothing can be stale")
    con = db.cursor()
    set_id = label_store.label_set_id(con, config.name)
    newest = judge_store.newest_judge_run(con, set_id) if set_id is not None else None
    if newest is None:
        raise UsageError(f"label set {config.name!r} was not made by a judge")
    pairs = pool_pairs(db, config) if pairs is None else pairs
    items = bank_items(db, method, config.bank)
    graded = judge_store.graded_cells(con, newest[0])
    stale = stale_cells(graded, pairs, items)
    return StalePlan(newest[0], stale, kept_cells(graded, pairs, items, stale))


def run_judge(
    db: Database, config: JudgeConfig, backend: Backend | None = None, *, stale_only: bool = False
) -> Generator[JudgeProgress | JudgeSummary, None, None]:
    """Judge every pair of the pool, yielding progress after each call and a summary last.

    With `stale_only` (a rubric judge after bank edits), only the stale cells are graded; every
    other grade of the newest run is carried over, so the new run is complete and the calls it
    costs are exactly those of the edited, added or split items.
    """
    start = time.perf_counter()
    method = get_method(config.method, config.prompt)
    pairs = pool_pairs(db, config)
    plan = stale_plan(db, config, pairs) if stale_only else None
    backend = backend or make_backend(db, config)
    params = backend.params()
    set_id = judge_label_set(db, config.name, backend.name)
    units, missing = build_units(db, method, pairs, config.seed, config.bank,
                                 only=plan.to_grade if plan is not None else None)
    for unit in units:
        unit.key = call_key(backend.name, backend.model, params, unit.request)
    with db.transaction() as tx:
        run = judge_store.create_judge_run(
            tx, set_id, method=method.name, backend=backend.name, model=backend.model,
            prompt_name=method.prompt.name, prompt_hash=method.prompt.sha256,
            params=params | {"seed": config.seed, "config": _rerunnable(config)}, pool=config.pool,
        )
        batch = new_batch(tx, "judge", f"{config.name} run {run}")
        if plan is not None:
            judge_store.copy_judgments(tx, plan.previous, run, sorted(plan.kept))
        for qid, docid in missing:
            judge_store.add_judgment(tx, run, qid, docid, None, "", label=None,
                                     parse_error="no text for the topic or document", expected=None, confidence=None)
    source = f"judge run {run}"
    by_key: dict[str, list[Unit]] = {}
    for unit in units:
        by_key.setdefault(unit.key, []).append(unit)
    total = len(units) + len(missing)
    stats = {"done": len(missing), "calls": 0, "hits": 0, "failures": len(missing), "prompt": 0, "completion": 0}
    cost = 0.0

    def record(tx: Any, key: str, output: str | None, error: str | None, probs: dict[str, float] | None) -> None:
        for unit in by_key[key]:
            stats["done"] += 1
            outcomes: list[tuple[str | None, Parsed, float | None, float | None]]
            if unit.window:
                window_parsed = (method.parse_window(output, len(unit.window))  # type: ignore[misc]
                                 if output is not None else [Parsed(None, f"call failed: {error}")] * len(unit.window))
                outcomes = [(item, parsed, None, None) for item, parsed in zip(unit.window, window_parsed, strict=True)]
            else:
                outcomes = [(unit.item_id, *_outcome(method, output, error, probs))]
            hashes = unit.item_hashes or (None,) * len(outcomes)
            for (item_id, parsed, expected, confidence), item_hash in zip(outcomes, hashes, strict=True):
                label = parsed.label
                judge_store.add_judgment(tx, run, unit.qid, unit.docid, unit.docid_b, key, label=label,
                                         parse_error=parsed.error, expected=expected, confidence=confidence,
                                         item_id=item_id, item_hash=item_hash)
                if label is None:
                    stats["failures"] += 1
                elif (not method.pairwise and method.item_kind is None
                      and label_store.current_grade(tx, set_id, unit.qid, unit.docid) != label):
                    label_store.append_label_event(tx, set_id, unit.qid, unit.docid, label, origin="judge",
                                                   source=source, batch_id=batch)

    # A call that failed for good (retries exhausted, server error) is asked again on the next
    # run; an answer that could not be parsed is not: the model would say the same.
    cached = {key: call for key, call in judge_store.cached_calls(db.cursor(), list(by_key)).items()
              if call["output"] is not None}
    if cached:
        with db.transaction() as tx:
            for key, call in cached.items():
                record(tx, key, call["output"], call["error"], call["label_probs"])
                stats["hits"] += len(by_key[key])
    yield JudgeProgress(stats["done"], total, 0, stats["hits"], stats["failures"], time.perf_counter() - start)

    pending = [key for key in by_key if key not in cached]
    requests = [by_key[key][0].request for key in pending]
    for index, result in backend.complete(requests):
        key = pending[index]
        with db.transaction() as tx:
            judge_store.store_call(
                tx, key, backend.name, backend.model, params, requests[index].as_json(),
                output=result.text, error=result.error, label_probs=result.label_probs,
                prompt_tokens=result.prompt_tokens, completion_tokens=result.completion_tokens,
                seconds=result.seconds, cost=result.cost,
            )
            record(tx, key, result.text, result.error, result.label_probs)
        stats["calls"] += 1
        stats["prompt"] += result.prompt_tokens
        stats["completion"] += result.completion_tokens
        cost += result.cost or 0.0
        yield JudgeProgress(stats["done"], total, stats["calls"], stats["hits"], stats["failures"],
                            time.perf_counter() - start)
    if method.pairwise:
        _write_preference_labels(db, run, set_id, pairs, batch, source)
    extra: dict[str, Any] = {}
    if method.own_score is not None:
        with db.transaction() as tx:
            write_own_scores(tx, method, run, set_id, batch, source, bank_items(db, method, config.bank))
        extra["derived_updated"] = refresh_derived(db, config.name)
    if plan is not None:
        extra |= {"stale_cells": len(plan.to_grade), "deleted_cells": len(plan.stale) - len(plan.to_grade),
                  "kept_cells": len(plan.kept)}
    if config.price_input or config.price_output:
        extra["cost"] = round(cost, 6)
    with db.transaction() as tx:
        judge_store.finish_judge_run(tx, run, pairs=len(pairs), calls=stats["calls"], cache_hits=stats["hits"],
                                     failures=stats["failures"])
    yield JudgeSummary(
        label_set=config.name, method=method.name, backend=backend.name, model=backend.model, pairs=len(pairs),
        calls=stats["calls"], cache_hits=stats["hits"], failures=stats["failures"],
        seconds=round(time.perf_counter() - start, 3), prompt_tokens=stats["prompt"],
        completion_tokens=stats["completion"], judge_run=run,
        extra=extra,
    )


def write_own_scores(con: Connection, method: Method, run: int, set_id: int, batch: int, source: str,
                     items: list[BankItem]) -> None:
    """A rubric judge's own label set: each graded document's score under the method's own score
    (best item grade 0–5 for exam methods, nugget score All for the assigner, fraction of subtopics
    satisfied). Other derived label sets come from the stored item grades (`studio derive`)."""
    assert method.own_score is not None
    scores = scores_of(method.own_score, judge_store.item_grades(con, run), items, DEFAULT_MIN_GRADE)
    for qid, docs in scores.items():
        for docid, score in docs.items():
            if label_store.current_grade(con, set_id, qid, docid) != score:
                label_store.append_label_event(con, set_id, qid, docid, score, origin="judge",
                                               source=source, batch_id=batch)


def _write_preference_labels(db: Database, run: int, set_id: int, pairs: list[tuple[str, str]],
                             batch: int, source: str) -> None:
    """Wins per document (ties ignored) become the label set's scores."""
    rows = db.cursor().execute(
        "SELECT qid, docid, docid_b, label FROM judgments WHERE judge_run_id = ? AND docid_b IS NOT NULL", [run]
    ).fetchall()
    answers = {(q, a, b): label for q, a, b, label in rows}
    by_topic: dict[str, list[str]] = {}
    for qid, docid in pairs:
        by_topic.setdefault(qid, []).append(docid)
    with db.transaction() as tx:
        for qid, docids in by_topic.items():
            outcomes = [(a, b, answers.get((qid, a, b)), answers.get((qid, b, a)))
                        for (q, a, b) in answers if q == qid and docids.index(a) < docids.index(b)]
            for docid, wins in pairwise_scores(docids, outcomes).items():
                if label_store.current_grade(tx, set_id, qid, docid) != wins:
                    label_store.append_label_event(tx, set_id, qid, docid, wins, origin="judge",
                                                   source=source, batch_id=batch)


def reparse(db: Database, label_set: str) -> dict[str, int]:
    """Read the label set's newest judge run again from the stored outputs, with the current
    parser: no model call. Changed labels become new label events."""
    con = db.cursor()
    set_id = label_store.label_set_id(con, label_set)
    if set_id is None:
        raise UsageError(f"no label set named {label_set!r}")
    newest = judge_store.newest_judge_run(con, set_id)
    if newest is None:
        raise UsageError(f"label set {label_set!r} was not made by a judge")
    run, method_name, _ = newest
    method = get_method(method_name)
    rows = con.execute(
        """
        SELECT g.rowid, g.qid, g.docid, g.docid_b, g.label, c.output, c.error
        FROM judgments g LEFT JOIN calls c ON c.key = g.call_key
        WHERE g.judge_run_id = ? AND g.call_key <> ''
        """,
        [run],
    ).fetchall()
    counts = {"judgments": len(rows), "changed": 0, "failures": 0}
    with db.transaction() as tx:
        batch = new_batch(tx, "reparse", f"{label_set} run {run}")
        for rowid, qid, docid, docid_b, old, output, error in rows:
            parsed = method.parse(output) if output is not None else Parsed(None, f"call failed: {error}")
            if parsed.label is None:
                counts["failures"] += 1
            if parsed.label == old:
                continue
            counts["changed"] += 1
            tx.execute("UPDATE judgments SET label = ?, parse_error = ? WHERE rowid = ?",
                       [parsed.label, parsed.error, rowid])
            if docid_b is None and parsed.label is not None:
                label_store.append_label_event(tx, set_id, qid, docid, parsed.label, origin="judge",
                                               source=f"reparse of judge run {run}", batch_id=batch)
    if method.pairwise and counts["changed"]:
        pairs = sorted({(q, d) for _, q, d, _, _, _, _ in rows} | {(q, b) for _, q, _, b, _, _, _ in rows if b})
        _write_preference_labels(db, run, set_id, pairs, batch, f"reparse of judge run {run}")
    return counts


# What `--stale` needs to run a judge again as it was: everything but secrets and the name.
RERUN_FIELDS = ("method", "backend", "pool", "model", "prompt", "topics", "limit", "ref", "kappa", "seed",
                "threads", "base_url", "api_key_env", "concurrency", "timeout", "retries", "bank")


def _rerunnable(config: JudgeConfig) -> dict[str, Any]:
    return {name: getattr(config, name) for name in RERUN_FIELDS}


def last_config(db: Database, label_set: str) -> JudgeConfig:
    """The configuration of the label set's newest judge run, to run it again.

    Re-running costs exactly the calls whose prompt changed: an edited bank item renders a new
    prompt (a cache miss) while every untouched cell is a cache hit, so only stale cells are graded.
    """
    import json

    con = db.cursor()
    set_id = label_store.label_set_id(con, label_set)
    if set_id is None:
        raise UsageError(f"no label set named {label_set!r}")
    newest = judge_store.newest_judge_run(con, set_id)
    if newest is None:
        raise UsageError(f"label set {label_set!r} was not made by a judge")
    saved = json.loads(newest[2]).get("config")
    if not saved:
        raise UsageError(f"the newest judge run of {label_set!r} predates re-runnable configurations")
    return JudgeConfig(name=label_set, **saved)
