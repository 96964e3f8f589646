"""The calls a judge makes: one request per pair (both orders for preferences, one per bank item
or window of items for rubric methods)."""

from __future__ import annotations

from dataclasses import dataclass

from studio.banks.stale import Cell
from studio.domain.errors import UsageError
from studio.domain.models import ANSWER_PREFIX, BankItem, item_text_hash
from studio.judges.backend import ChatRequest
from studio.judges.methods import Method, sample_pairs
from studio.judges.pair_sampling import tournament_pairs
from studio.store import Database, pools
from studio.store import banks as bank_store


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
    sample: int | None = None  # which of the pair's sampled answers (judge --samples K)


def build_units(
    db: Database,
    method: Method,
    pairs: list[tuple[str, str]],
    seed: int,
    bank: str | None = None,
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
        # Generated answers meet as a tournament (O(n log n) pairs a topic), passages as Clarke et al.'s P·n.
        answers = all(d.startswith(ANSWER_PREFIX) for d in docids)
        sampled = tournament_pairs(docids, seed=seed, qid=qid) if answers else sample_pairs(docids, seed=seed, qid=qid)
        for a, b in sampled:
            for first, second in ((a, b), (b, a)):
                request = method.request(
                    (qid, first, second),
                    query=queries[qid],
                    passage_a=passages[(qid, first)],
                    passage_b=passages[(qid, second)],
                )
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
    method: Method,
    pairs: list[tuple[str, str]],
    queries: dict[str, str],
    passages: dict[tuple[str, str], str],
    items: list[BankItem],
    only: set[Cell] | None,
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
                    (qid, docid, *(i.item_id for i in window)),
                    query=queries[qid],
                    context=passages[(qid, docid)],
                    nuggets=repr([i.text for i in window]),
                    num_nuggets=str(len(window)),
                )
                units.append(
                    Unit(
                        qid,
                        docid,
                        None,
                        request,
                        window=tuple(i.item_id for i in window),
                        item_hashes=tuple(item_text_hash(i.text) for i in window),
                    )
                )
            continue
        for item in topic_items:
            request = method.request(
                (qid, docid, item.item_id),
                query=queries[qid],
                **{method.item_kind: item.text, "passage": passages[(qid, docid)]},
            )
            units.append(
                Unit(qid, docid, None, request, item_id=item.item_id, item_hashes=(item_text_hash(item.text),))
            )
    return units
