"""A test bank's current items in one of its three formats."""

from __future__ import annotations

from pathlib import Path

from studio.domain.errors import UsageError
from studio.formats.bank_writers import BankFormat, format_for_name, losses, render_bank
from studio.services.exports.delivery import ExportReport, deliver
from studio.store import Database
from studio.store import banks as bank_store
from studio.store.pools import topic_texts


def export_bank(db: Database, name: str, path: str | Path, fmt: BankFormat | str | None = None) -> ExportReport:
    """A test bank's current items; the format defaults to the file name's (.tsv, else rubric)."""
    con = db.cursor()
    bank = bank_store.bank_id(con, name)
    if bank is None:
        raise UsageError(f"no bank named {name!r} (see `studio list banks`)")
    try:
        chosen = format_for_name(str(path)) if fmt is None else BankFormat(fmt)
    except ValueError:
        raise UsageError(f"unknown bank format {fmt!r} (rubric, nuggetizer or tsv)") from None
    items = bank_store.current_items(con, bank)
    texts = topic_texts(con, sorted({item.qid for item in items}))
    text = render_bank(items, chosen, texts, test_collection=name)
    warnings = losses(items, chosen) + ([] if items else [f"bank {name!r} holds no items: the file is empty"])
    target = deliver(text, path)
    counts = {"topics": len({item.qid for item in items}), "items": len(items)}
    return ExportReport("bank", f"{name} as {chosen}", target, counts, warnings)
