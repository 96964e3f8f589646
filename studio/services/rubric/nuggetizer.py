"""Nuggets from judged-relevant documents, as AutoNuggetizer makes them (Pradeep et al., TREC RAG 2024).

Per topic: read the relevant documents in windows of 10, each time asking the model to update a
list of at most 30 atomic nuggets; then label each nugget vital or okay (windows of 10) and keep
the 20 most important (vital first, in the model's order). Every call goes through the call
cache, so a run can be repeated or resumed at no cost; an answer that cannot be read keeps the
previous list (creation) or leaves the importance unset (scoring) and is counted as a failure.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from studio.domain.bank_results import NuggetizedBank, NuggetizedTopic, NuggetizeEvent
from studio.domain.errors import UsageError
from studio.domain.judging import JudgeConfig
from studio.domain.models import BankItem, rubric_item_id
from studio.judges.backend import Backend, ChatRequest, ChatResult, call_key
from studio.judges.parsing import parse_python_list
from studio.judges.prompts import PromptTemplate, load_prompt
from studio.services.judging.backends import make_backend
from studio.store import Connection, Database, new_batch, pools
from studio.store import banks as bank_store
from studio.store import judging as judge_store
from studio.store import labels as label_store

DOCS_PER_WINDOW = 10
MAX_NUGGETS = 30
KEEP = 20
NUGGETS_PER_SCORING = 10


class _CachedCaller:
    """One call at a time through the project's call cache (answers depend on earlier answers)."""

    def __init__(self, db: Database, backend: Backend) -> None:
        self.db, self.backend, self.params = db, backend, backend.params()
        self.calls = self.hits = 0

    def __call__(self, request: ChatRequest) -> str | None:
        key = call_key(self.backend.name, self.backend.model, self.params, request)
        cached = judge_store.cached_calls(self.db.cursor(), [key]).get(key)
        if cached is not None and cached["output"] is not None:
            self.hits += 1
            return str(cached["output"])
        result: ChatResult = next(iter(self.backend.complete([request])))[1]
        self.calls += 1
        with self.db.transaction() as tx:
            judge_store.store_call(
                tx,
                key,
                self.backend.name,
                self.backend.model,
                self.params,
                request.as_json(),
                output=result.text,
                error=result.error,
                label_probs=None,
                prompt_tokens=result.prompt_tokens,
                completion_tokens=result.completion_tokens,
                seconds=result.seconds,
                cost=result.cost,
            )
        return result.text


class TopicDocuments(NamedTuple):
    """A topic's query and the texts of its relevant documents, in docid order."""

    query: str
    passages: list[str]


class NuggetList(NamedTuple):
    """A topic's nuggets after reading all its documents, and the answers that could not be read."""

    nuggets: list[str]
    failures: int


class Importance(NamedTuple):
    """Each nugget's importance ("vital", "okay", or None when unread), and the answers that could not be read."""

    of: dict[str, str | None]
    failures: int


def nuggetize(
    db: Database,
    config: JudgeConfig,
    *,
    relevant: float = 2.0,
    replace: bool = False,
    backend: Backend | None = None,
) -> Iterator[NuggetizeEvent]:
    """Build bank `config.name` from the documents `config.ref` grades ≥ `relevant`; yields a
    NuggetizedTopic per topic and the NuggetizedBank last."""
    con = db.cursor()
    existing = bank_store.bank_id(con, config.name)
    if existing is not None and not replace:
        raise UsageError(f"bank {config.name!r} already exists (use --replace)")
    ref_id = label_store.label_set_id(con, config.ref)
    if ref_id is None:
        raise UsageError(f"no reference label set {config.ref!r}")
    by_topic = relevant_documents(con, ref_id, relevant, config.topics)
    create, score = load_prompt("nuggetize-create"), load_prompt("nuggetize-score")
    backend = backend or make_backend(db, config)
    call = _CachedCaller(db, backend)
    items: list[BankItem] = []
    failures = 0
    for qid, topic in sorted(by_topic.items()):
        made = create_nuggets(call, create, qid, topic)
        importance = score_nuggets(call, score, qid, topic.query, made.nuggets)
        failures += made.failures + importance.failures
        kept = most_important(qid, made.nuggets, importance.of)
        items += kept
        yield NuggetizedTopic(qid, len(topic.passages), nuggets=len(kept), calls=call.calls, cache_hits=call.hits)
    write_bank(db, config, existing, backend, items)
    yield NuggetizedBank(
        config.name, topics=len(by_topic), items=len(items), calls=call.calls, cache_hits=call.hits, failures=failures
    )


def relevant_documents(
    con: Connection, ref_id: int, relevant: float, topics: list[str] | None
) -> dict[str, TopicDocuments]:
    """The topics (all, or those of `topics`) with a document graded ≥ `relevant` whose texts are
    known."""
    pairs = pools.pairs_graded_at_least(con, ref_id, relevant)
    if topics:
        pairs = [p for p in pairs if p[0] in topics]
    queries = pools.topic_texts(con, [q for q, _ in pairs])
    texts = pools.passage_texts(con, pairs)
    by_topic: dict[str, TopicDocuments] = {}
    for qid, docid in pairs:
        if qid in queries and (qid, docid) in texts:
            by_topic.setdefault(qid, TopicDocuments(queries[qid], [])).passages.append(texts[(qid, docid)])
    return by_topic


def create_nuggets(call: _CachedCaller, create: PromptTemplate, qid: str, topic: TopicDocuments) -> NuggetList:
    """The nugget list, updated window by window of documents; an unreadable answer keeps it as it was."""
    nuggets: list[str] = []
    failures = 0
    for start in range(0, len(topic.passages), DOCS_PER_WINDOW):
        window = topic.passages[start : start + DOCS_PER_WINDOW]
        context = "\n".join(f"[{i + 1}] {text}" for i, text in enumerate(window))
        request = ChatRequest(
            tuple(
                create.render(
                    query=topic.query,
                    context=context,
                    nuggets=repr(nuggets),
                    nuggets_length=str(len(nuggets)),
                    max_nuggets=str(MAX_NUGGETS),
                )
            ),
            max_tokens=600,
            subject=(qid,),
            unit="generate",
        )
        updated = parse_python_list(call(request) or "")
        if updated is None:
            failures += 1
        else:
            nuggets = list(dict.fromkeys(updated))[:MAX_NUGGETS]
    return NuggetList(nuggets, failures)


def score_nuggets(call: _CachedCaller, score: PromptTemplate, qid: str, query: str, nuggets: list[str]) -> Importance:
    """Each nugget labelled vital or okay, window by window; an unreadable answer leaves its window unset."""
    importance: dict[str, str | None] = {}
    failures = 0
    for start in range(0, len(nuggets), NUGGETS_PER_SCORING):
        window = nuggets[start : start + NUGGETS_PER_SCORING]
        request = ChatRequest(
            tuple(score.render(query=query, nuggets=repr(window), num_nuggets=str(len(window)))),
            max_tokens=200,
            subject=(qid,),
            unit="generate",
        )
        labels = parse_python_list(call(request) or "")
        if labels is None or len(labels) != len(window):
            failures += 1
            labels = [""] * len(window)
        for nugget, label in zip(window, labels, strict=True):
            importance[nugget] = label.lower() if label.lower() in ("vital", "okay") else None
    return Importance(importance, failures)


def most_important(qid: str, nuggets: list[str], importance: dict[str, str | None]) -> list[BankItem]:
    """The `KEEP` nuggets kept as the topic's bank items: vital first, in the model's order."""
    ranked = sorted(nuggets, key=lambda n: 0 if importance.get(n) == "vital" else 1)[:KEEP]
    return [BankItem(qid, rubric_item_id(qid, n), "nugget", n, importance.get(n)) for n in ranked]


def write_bank(
    db: Database, config: JudgeConfig, existing: int | None, backend: Backend, items: list[BankItem]
) -> None:
    """The bank made (or replaced) as item events: the items no longer made deleted, the new ones
    added, the changed ones edited, in one transaction."""
    with db.transaction() as tx:
        batch = new_batch(tx, "nuggetize", f"{backend.name}:{backend.model}")
        bank = (
            existing
            if existing is not None
            else bank_store.create_bank(
                tx, config.name, f"AutoNuggetizer by {backend.name}:{backend.model} from {config.ref}"
            )
        )
        current = {i.item_id: i for i in bank_store.current_items(tx, bank)}
        bank_store.append_item_events(
            tx,
            bank,
            item_events(current, items),
            origin="generate",
            source=f"{backend.name}:{backend.model}",
            batch_id=batch,
            note="AutoNuggetizer",
        )


def item_events(current: dict[str, BankItem], items: list[BankItem]) -> list[tuple[str, BankItem, int]]:
    """The (action, item, position in its topic) events that turn the `current` items into `items`."""
    wanted = {i.item_id for i in items}
    events = [("delete", item, 0) for item_id, item in current.items() if item_id not in wanted]
    positions: dict[str, int] = {}
    for item in items:
        positions[item.qid] = positions.get(item.qid, -1) + 1
        if current.get(item.item_id) != item:
            events.append(("add" if item.item_id not in current else "edit", item, positions[item.qid]))
    return events
