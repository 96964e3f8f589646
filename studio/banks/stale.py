"""Which item grades an edited test bank leaves stale, as plain data.

A rubric judge grades each (topic, document, item) cell and keeps the md5 of the item text it
graded. After bank edits, a cell is stale when its item's text changed (`edited`), when it has no
grade yet (`new`: an added, merged or split item, or a pair new to the pool), or when its item is
gone (`deleted`: the grade is dropped, no call is needed). Every other cell keeps its grade.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from studio.domain.models import BankItem, item_text_hash

Cell = tuple[str, str, str]  # (qid, docid, item_id)


@dataclass(frozen=True, slots=True)
class StaleCell:
    qid: str
    docid: str
    item_id: str
    reason: str  # edited | new | deleted


def stale_cells(
    graded: Mapping[Cell, str | None], pairs: Iterable[tuple[str, str]], items: Iterable[BankItem]
) -> list[StaleCell]:
    """The stale cells of the pool `pairs` under the current `items`, given the item hash each
    graded cell was graded with (None for grades stored before hashes were kept: not stale)."""
    items = list(items)
    by_topic: dict[str, list[BankItem]] = {}
    for item in items:
        by_topic.setdefault(item.qid, []).append(item)
    stale: list[StaleCell] = []
    for qid, docid in dict.fromkeys(pairs):
        for item in by_topic.get(qid, ()):
            cell = (qid, docid, item.item_id)
            if cell not in graded:
                stale.append(StaleCell(qid, docid, item.item_id, "new"))
            elif graded[cell] is not None and graded[cell] != item_text_hash(item.text):
                stale.append(StaleCell(qid, docid, item.item_id, "edited"))
    current = {(item.qid, item.item_id) for item in items}
    stale.extend(StaleCell(q, d, i, "deleted") for (q, d, i) in sorted(graded) if (q, i) not in current)
    return stale


def kept_cells(
    graded: Iterable[Cell], pairs: Iterable[tuple[str, str]], items: Iterable[BankItem], stale: Iterable[StaleCell]
) -> set[Cell]:
    """The graded cells whose grades still hold: current item, pair in the pool, not stale."""
    pool = set(pairs)
    current = {(item.qid, item.item_id) for item in items}
    dropped = {(c.qid, c.docid, c.item_id) for c in stale}
    return {(q, d, i) for q, d, i in graded if (q, d) in pool and (q, i) in current and (q, d, i) not in dropped}
