"""A test bank's current items in one of its four layouts."""

from __future__ import annotations

from pathlib import Path

from studio.domain.choices import BankFormat
from studio.domain.errors import UsageError
from studio.domain.export_report import ExportReport
from studio.formats.bank_writers import format_for_name, losses, render_bank
from studio.services.exports.delivery import deliver
from studio.store import Database
from studio.store import banks as bank_store
from studio.store.pools import topic_texts


def export_bank(db: Database, name: str, path: str | Path, fmt: BankFormat | str | None = None) -> ExportReport:
    """A test bank's current items, topics in the order they came into the bank.

    Without `fmt`, a `.tsv` name writes TSV and any other name the JSON layout the bank was
    imported in (Rubric for a bank made in the studio or imported from TSV). The test collection
    is the one the bank's file named, else the bank's name.
    """
    con = db.cursor()
    bank = bank_store.bank_id(con, name)
    if bank is None:
        raise UsageError(f"no bank named {name!r} (see `studio list banks`)")
    layout, collection = bank_store.bank_layout(con, bank)
    try:
        chosen = format_for_name(str(path), layout) if fmt is None else BankFormat(fmt)
    except ValueError:
        known = ", ".join(BankFormat)
        raise UsageError(f"unknown bank format {fmt!r} ({known})") from None
    order = {qid: n for n, qid in enumerate(bank_store.topic_order(con, bank))}
    items = sorted(bank_store.current_items(con, bank), key=lambda item: order.get(item.qid, len(order)))
    texts = topic_texts(con, sorted({item.qid for item in items}))
    text = render_bank(items, chosen, texts, test_collection=name if collection is None else collection)
    warnings = losses(items, chosen) + ([] if items else [f"bank {name!r} holds no items: the file is empty"])
    target = deliver(text, path)
    counts = {"topics": len({item.qid for item in items}), "items": len(items)}
    return ExportReport("bank", f"{name} as {chosen}", target, counts, warnings)
