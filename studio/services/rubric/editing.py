"""Editing a test bank: add, edit, delete, merge, split and re-weight items.

Every change is an audited bank event (who, when, note, the item as it is afterwards), written
in one transaction per edit; the bank's current items are a view over the events, so nothing is
ever lost and every item's history can be read back.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from studio.domain.errors import UsageError
from studio.domain.models import IMPORTANCE_LEVELS, ITEM_KINDS, BankItem, rubric_item_id
from studio.domain.names import check_id
from studio.services.evaluation.engine import EvaluationEngine
from studio.services.writes.label_writes import LabelWrites
from studio.store import Database, new_batch
from studio.store import banks as bank_store


class BankEditor:
    """The edits of one bank, each recorded as `person` with an optional note."""

    def __init__(
        self, db: Database, bank: str, person: str | None = None, *, writes: LabelWrites | None = None
    ) -> None:
        found = bank_store.bank_id(db.cursor(), bank)
        if found is None:
            raise UsageError(f"no bank named {bank!r} (see `studio list banks`)")
        self.db, self.name, self.bank, self.person = db, bank, found, person
        # Bank scores made with this bank follow each edit, in its transaction.
        self.writes = writes if writes is not None else LabelWrites(EvaluationEngine(db))

    def _items(self) -> dict[str, tuple[BankItem, int]]:
        return bank_store.item_positions(self.db.cursor(), self.bank)

    def _item(self, item_id: str) -> tuple[BankItem, int]:
        found = self._items().get(item_id)
        if found is None:
            raise UsageError(f"bank {self.name!r} has no item {item_id!r}")
        return found

    def _record(self, command: str, events: list[tuple[str, BankItem, int]], note: str | None) -> None:
        with self.writes.bank_edit(self.name) as tx:
            batch = new_batch(tx, f"bank {command}", self.person)
            bank_store.append_item_events(
                tx, self.bank, events, origin="person", source=self.person, batch_id=batch, note=note
            )

    def _next_position(self, qid: str) -> int:
        return 1 + max((pos for item, pos in self._items().values() if item.qid == qid), default=-1)

    def _new_item(self, qid: str, text: str, kind: str, importance: str | None) -> BankItem:
        check_id(qid, "qid")
        text = text.strip()
        if not text:
            raise UsageError("an item needs a text")
        if kind not in ITEM_KINDS:
            raise UsageError(f"kind must be one of {', '.join(ITEM_KINDS)}")
        if importance is not None and importance not in IMPORTANCE_LEVELS:
            raise UsageError(f"importance must be one of {', '.join(IMPORTANCE_LEVELS)}")
        item = BankItem(qid, rubric_item_id(qid, text), kind, text, importance)
        if item.item_id in self._items():
            raise UsageError(f"topic {qid} already has the item {text!r} ({item.item_id})")
        return item

    def add(
        self, qid: str, text: str, *, kind: str = "nugget", importance: str | None = None, note: str | None = None
    ) -> BankItem:
        item = self._new_item(qid, text, kind, importance)
        self._record("add", [("add", item, self._next_position(qid))], note)
        return item

    def edit(
        self, item_id: str, *, text: str | None = None, gold_answers: list[str] | None = None, note: str | None = None
    ) -> BankItem:
        """New wording (the item keeps its id, so its history stays one story)."""
        item, position = self._item(item_id)
        changed = replace(
            item,
            text=text.strip() if text is not None else item.text,
            gold_answers=tuple(gold_answers) if gold_answers is not None else item.gold_answers,
        )
        if not changed.text:
            raise UsageError("an item needs a text")
        self._record("edit", [("edit", changed, position)], note)
        return changed

    def weight(self, item_id: str, importance: str, *, note: str | None = None) -> BankItem:
        if importance not in IMPORTANCE_LEVELS:
            raise UsageError(f"importance must be one of {', '.join(IMPORTANCE_LEVELS)}")
        item, position = self._item(item_id)
        changed = replace(item, importance=importance)
        self._record("weight", [("weight", changed, position)], note)
        return changed

    def toggle_weight(self, item_id: str, *, note: str | None = None) -> BankItem:
        """Vital becomes okay and okay (or none) vital, as the item is stored now: two toggles in a
        row undo each other whatever a screen showed when they were asked for."""
        item, _ = self._item(item_id)
        return self.weight(item_id, "okay" if item.importance == "vital" else "vital", note=note)

    def restore(self, item: BankItem, position: int, *, note: str | None = None) -> BankItem:
        """Bring back a deleted item as it was, at its place (the undo of `delete`)."""
        if item.item_id in self._items():
            raise UsageError(f"bank {self.name!r} holds the item {item.item_id!r} already")
        self._record("restore", [("add", item, position)], note or f"restored {item.item_id}")
        return item

    def position_of(self, item_id: str) -> int:
        return self._item(item_id)[1]

    def delete(self, item_id: str, *, note: str | None = None) -> BankItem:
        item, position = self._item(item_id)
        self._record("delete", [("delete", item, position)], note)
        return item

    def merge(self, item_ids: list[str], *, text: str | None = None, note: str | None = None) -> BankItem:
        """One item instead of several of one topic; vital when any of them was."""
        if len(item_ids) < 2 or len(set(item_ids)) != len(item_ids):
            raise UsageError("merge takes two or more different items")
        parts = [self._item(i) for i in item_ids]
        qids = {item.qid for item, _ in parts}
        if len(qids) != 1:
            raise UsageError("merged items must belong to one topic")
        first = parts[0][0]
        importance = "vital" if any(item.importance == "vital" for item, _ in parts) else first.importance
        merged_text = (text or " ".join(item.text for item, _ in parts)).strip()
        merged = BankItem(
            first.qid,
            rubric_item_id(first.qid, merged_text),
            first.kind,
            merged_text,
            importance,
            tuple(dict.fromkeys(g for item, _ in parts for g in item.gold_answers)),
        )
        events = [("delete", item, position) for item, position in parts if item.item_id != merged.item_id]
        events.append(("merge", merged, min(position for _, position in parts)))
        self._record("merge", events, note or f"merged {', '.join(item_ids)}")
        return merged

    def split(self, item_id: str, texts: list[str], *, note: str | None = None) -> list[BankItem]:
        """Several items instead of one; each keeps the original's kind and importance."""
        item, position = self._item(item_id)
        if len(texts) < 2:
            raise UsageError("split needs two or more texts")
        parts = [
            BankItem(item.qid, rubric_item_id(item.qid, t.strip()), item.kind, t.strip(), item.importance)
            for t in texts
        ]
        if len({p.item_id for p in parts}) != len(parts) or any(not p.text for p in parts):
            raise UsageError("split texts must be different and not empty")
        existing = self._items()
        clash = [p.text for p in parts if p.item_id in existing and p.item_id != item_id]
        if clash:
            raise UsageError(f"topic {item.qid} already has {clash[0]!r}")
        events: list[tuple[str, BankItem, int]] = []
        if item_id not in {p.item_id for p in parts}:
            events.append(("delete", item, position))
        events += [("split", part, position + i) for i, part in enumerate(parts)]
        self._record("split", events, note or f"split {item_id}")
        return parts

    def history(self, limit: int = 50) -> list[dict[str, Any]]:
        return bank_store.bank_history(self.db.cursor(), self.bank, limit)

    def items(self, qid: str | None = None) -> list[dict[str, Any]]:
        rows = sorted(self._items().values(), key=lambda ip: (ip[0].qid.encode("utf-8"), ip[1], ip[0].item_id))
        return [
            {
                "qid": item.qid,
                "item_id": item.item_id,
                "kind": item.kind,
                "text": item.text,
                "importance": item.importance,
                "position": position,
            }
            for item, position in rows
            if qid is None or item.qid == qid
        ]
