"""Test banks and their append-only item events."""

from __future__ import annotations

from collections.abc import Sequence

from studio.domain.models import BankItem
from studio.store.database import Connection, records
from studio.store.new_names import new_name


def bank_id(con: Connection, name: str) -> int | None:
    row = con.execute("SELECT bank_id FROM banks WHERE name = ?", [name]).fetchone()
    return None if row is None else int(row[0])


def create_bank(
    con: Connection,
    name: str,
    source: str | None,
    *,
    layout: str | None = None,
    test_collection: str | None = None,
) -> int:
    """A new, empty bank; `layout` is the file layout it came in (None: made in the studio). Its
    name is stored composed, and refused when it looks like a taken one."""
    name = new_name(con, "bank", name)
    row = con.execute(
        "INSERT INTO banks (bank_id, name, source, layout, test_collection)"
        " VALUES (nextval('bank_ids'), ?, ?, ?, ?) RETURNING bank_id",
        [name, source, layout, test_collection],
    ).fetchone()
    assert row is not None
    return int(row[0])


def set_bank_layout(con: Connection, bank: int, layout: str | None, test_collection: str | None) -> None:
    """The layout and test collection of the files a bank was (re-)imported from."""
    con.execute("UPDATE banks SET layout = ?, test_collection = ? WHERE bank_id = ?", [layout, test_collection, bank])


def bank_layout(con: Connection, bank: int) -> tuple[str | None, str | None]:
    """(layout, test collection) as the bank's files gave them; None where they did not."""
    row = con.execute("SELECT layout, test_collection FROM banks WHERE bank_id = ?", [bank]).fetchone()
    return (None, None) if row is None else (row[0], row[1])


def topic_order(con: Connection, bank: int) -> list[str]:
    """The bank's topics in the order they first came into it (a file's line order)."""
    rows = con.execute(
        "SELECT qid FROM bank_events WHERE bank_id = ? GROUP BY qid ORDER BY min(event_id)", [bank]
    ).fetchall()
    return [qid for (qid,) in rows]


def current_items(con: Connection, bank: int) -> list[BankItem]:
    rows = con.execute(
        "SELECT qid, item_id, kind, text, importance, gold_answers FROM bank_items"
        " WHERE bank_id = ? ORDER BY qid, position, item_id",
        [bank],
    ).fetchall()
    return [
        BankItem(qid, item_id, kind, text, importance, tuple(gold))
        for qid, item_id, kind, text, importance, gold in rows
    ]


def append_item_events(
    con: Connection,
    bank: int,
    events: Sequence[tuple[str, BankItem, int]],
    *,
    origin: str,
    source: str | None,
    batch_id: int,
    note: str | None = None,
) -> None:
    """Append (op, item-after-change, position) events in one statement."""
    if not events:
        return
    con.execute(
        """
        INSERT INTO bank_events (event_id, bank_id, item_id, qid, op, kind, text, importance,
                                 gold_answers, position, origin, source, batch_id, note)
        SELECT nextval('bank_event_ids'), ?, * , ?, ?, ?, ?
        FROM (SELECT unnest(?::VARCHAR[]) AS item_id, unnest(?::VARCHAR[]) AS qid,
                     unnest(?::VARCHAR[]) AS op, unnest(?::VARCHAR[]) AS kind,
                     unnest(?::VARCHAR[]) AS text, unnest(?::VARCHAR[]) AS importance,
                     unnest(?::VARCHAR[][]) AS gold_answers, unnest(?::INTEGER[]) AS position)
        """,
        [
            bank,
            origin,
            source,
            batch_id,
            note,
            [item.item_id for _, item, _ in events],
            [item.qid for _, item, _ in events],
            [op for op, _, _ in events],
            [item.kind for _, item, _ in events],
            [item.text for _, item, _ in events],
            [item.importance for _, item, _ in events],
            [list(item.gold_answers) for _, item, _ in events],
            [position for _, _, position in events],
        ],
    )


def item_positions(con: Connection, bank: int) -> dict[str, tuple[BankItem, int]]:
    """Current items with their positions, by item id."""
    rows = con.execute(
        "SELECT qid, item_id, kind, text, importance, gold_answers, position FROM bank_items WHERE bank_id = ?",
        [bank],
    ).fetchall()
    return {
        item_id: (BankItem(qid, item_id, kind, text, importance, tuple(gold)), int(position))
        for qid, item_id, kind, text, importance, gold, position in rows
    }


def bank_history(con: Connection, bank: int, limit: int) -> list[dict[str, object]]:
    """Item events of a bank, newest first, with their provenance."""
    cursor = con.execute(
        """
        SELECT event_id AS event, op, item_id, qid, kind, text, importance, origin, source, note,
               strftime(created_at, '%Y-%m-%d %H:%M:%S') AS time
        FROM bank_events WHERE bank_id = ? ORDER BY event_id DESC LIMIT ?
        """,
        [bank, limit],
    )
    return records(cursor)
