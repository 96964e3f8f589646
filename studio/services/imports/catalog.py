"""Importing topics, documents, generated answers and test banks (all or nothing per command)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from studio.domain.choices import OnDuplicate
from studio.domain.errors import InputError, UsageError
from studio.domain.import_report import ImportReport
from studio.domain.models import BankItem, Response, Topic
from studio.domain.names import check_name
from studio.formats.banks import ParsedBank, read_bank
from studio.formats.documents import DocumentSet
from studio.formats.responses import parse_responses
from studio.formats.text_input import read_lines
from studio.formats.topics import parse_topics
from studio.services.imports.trec import named_after_file, names_for_files, require_files
from studio.store import Connection, Database, catalog, new_batch
from studio.store import banks as bank_store
from studio.store.pools import topic_texts


def import_topics(db: Database, paths: Sequence[Path], *, replace: bool = False) -> ImportReport:
    """Topics of every file; a qid the project holds with another text is refused unless `replace`
    (then the batch of the import records what replaced it)."""
    require_files(paths)
    topics: dict[str, Topic] = {}
    for path in paths:
        for topic in parse_topics(read_lines(path), str(path)):
            if topic.qid in topics:
                raise InputError(str(path), None, f"topic {topic.qid!r} is also in an earlier file")
            topics[topic.qid] = topic
    files = [str(p) for p in paths]
    changed = catalog.changed_topics(db.cursor(), list(topics.values()))
    _refuse_unasked(changed, "topic", replace)
    with db.transaction() as tx:
        new_batch(tx, "import topics --replace" if changed else "import topics", ", ".join(files))
        catalog.upsert_topics(tx, list(topics.values()))
    counts = {"topics": len(topics)} | ({"replaced": len(changed)} if changed else {})
    return ImportReport("topics", files, counts=counts)


def _refuse_unasked(changed: list[str], what: str, replace: bool) -> None:
    """A UsageError when ids the project holds would take another text without `replace`."""
    if changed and not replace:
        shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
        raise UsageError(
            f"{len(changed)} {what}(s) the project holds would take another text ({shown}): "
            "use --replace to replace them"
        )


def import_documents(
    db: Database, paths: Sequence[Path], *, on_duplicate: OnDuplicate = OnDuplicate.ERROR, replace: bool = False
) -> ImportReport:
    """Documents of every file; a docid listed again (in any of the files) with the same text is
    loaded once and counted as `repeated`, with a different text refused unless `on_duplicate`
    keeps the first or the last (counted as `conflicting`); a docid the project holds with another
    title or text is refused unless `replace`."""
    require_files(paths)
    documents = DocumentSet(on_duplicate)
    for path in paths:
        documents.add_file(read_lines(path), str(path))
    files = [str(p) for p in paths]
    changed = catalog.changed_documents(db.cursor(), documents.documents)
    _refuse_unasked(changed, "document", replace)
    with db.transaction() as tx:
        new_batch(tx, "import docs --replace" if changed else "import docs", ", ".join(files))
        catalog.upsert_documents(tx, documents.documents)
    counts = {"documents": len(documents.found), "repeated": documents.repeated}
    if changed:
        counts["replaced"] = len(changed)
    if on_duplicate is not OnDuplicate.ERROR:
        counts["conflicting"] = documents.conflicting
    return ImportReport("documents", [str(p) for p in paths], counts=counts, warnings=documents.warnings())


def import_responses(
    db: Database, paths: Sequence[Path], *, system: str | None = None, replace: bool = False
) -> ImportReport:
    """Generated answers; a system already loaded is refused unless `replace`."""
    require_files(paths)
    if system is not None:
        system = check_name(system, "system")
    responses: list[Response] = []
    for path in paths:
        responses.extend(parse_responses(read_lines(path), str(path), system))
    pairs = [(r.qid, r.system) for r in responses]
    if len(set(pairs)) != len(pairs):
        raise UsageError("the files answer the same topic for the same system more than once")
    systems = sorted({r.system for r in responses})
    con = db.cursor()
    taken = sorted(catalog.response_systems(con) & set(systems))
    if taken and not replace:
        raise UsageError(f"system {', '.join(taken)} is already loaded (use --replace)")
    with db.transaction() as tx:
        batch = new_batch(tx, "import responses", ", ".join(str(p) for p in paths))
        catalog.delete_responses(tx, systems)
        catalog.insert_responses(tx, responses, batch)
    return ImportReport(
        "responses", [str(p) for p in paths], systems, {"systems": len(systems), "responses": len(responses)}
    )


def import_bank(
    db: Database,
    paths: Sequence[Path],
    *,
    name: str | None = None,
    kind: str | None = None,
    replace: bool = False,
) -> ImportReport:
    """All files go into one bank (questions and nuggets may share it).

    Replacing a bank appends the differences as item events, so its history is kept.
    """
    require_files(paths)
    (bank_name,) = names_for_files(paths[:1], name, named_after_file("bank"), "bank")
    items: dict[str, BankItem] = {}
    files: list[ParsedBank] = []
    for path in paths:
        files.append(read_bank(read_lines(path), str(path), kind))
        for item in files[-1].items:
            if item.item_id in items:
                raise InputError(str(path), None, f"item {item.item_id!r} is also in an earlier file")
            items[item.item_id] = item
    # The layout an export writes back: the files' own when they share one.
    layouts = {parsed.layout.value for parsed in files}
    layout = layouts.pop() if len(layouts) == 1 else None
    collection = next((parsed.test_collection for parsed in files if parsed.test_collection is not None), None)
    con = db.cursor()
    existing = bank_store.bank_id(con, bank_name)
    if existing is not None and not replace:
        raise UsageError(f"bank {bank_name!r} already exists (use --replace)")
    report = ImportReport("bank", [str(p) for p in paths], [bank_name])
    report.warnings = [warning for parsed in files for warning in parsed.warnings]
    with db.transaction() as tx:
        batch = new_batch(tx, "import bank", ", ".join(str(p) for p in paths))
        if existing is None:
            bank = bank_store.create_bank(tx, bank_name, str(paths[0]), layout=layout, test_collection=collection)
        else:
            bank = existing
            bank_store.set_bank_layout(tx, bank, layout, collection)
        current = {item.item_id: item for item in bank_store.current_items(tx, bank)}
        events = _bank_differences(current, list(items.values()))
        bank_store.append_item_events(tx, bank, events, origin="import", source=str(paths[0]), batch_id=batch)
        added = _topics_from_bank(tx, files, report)
    report.counts = {
        "topics": len({item.qid for item in items.values()}),
        "items": len(items),
        "questions": sum(item.kind == "question" for item in items.values()),
        "nuggets": sum(item.kind == "nugget" for item in items.values()),
        **({"topics_added": added} if added else {}),
    }
    return report


def _topics_from_bank(tx: Connection, files: Sequence[ParsedBank], report: ImportReport) -> int:
    """Topics the project lacks get the query text of the bank's file; a project topic keeps its
    own text (a different one is counted in a warning). Returns how many topics were added."""
    texts: dict[str, str] = {}
    for parsed in files:
        for qid, text in parsed.query_texts.items():
            texts.setdefault(qid, text)
    known = topic_texts(tx, list(texts))
    catalog.add_missing_topics(tx, [Topic(qid, text) for qid, text in texts.items() if qid not in known])
    differ = sorted(qid for qid, text in texts.items() if qid in known and known[qid] != text)
    if differ:
        shown = ", ".join(differ[:3]) + (f" and {len(differ) - 3} more" if len(differ) > 3 else "")
        report.warnings.append(
            f"{len(differ)} topic(s) have another text in the project than in the bank's file ({shown}):"
            " the project's text is kept, and an export writes it"
        )
    return len(texts) - len(known)


def _bank_differences(current: dict[str, BankItem], wanted: list[BankItem]) -> list[tuple[str, BankItem, int]]:
    """Events that turn `current` into `wanted`: add, edit, and delete what is gone."""
    events: list[tuple[str, BankItem, int]] = []
    positions: dict[str, int] = {}
    for item in wanted:
        position = positions[item.qid] = positions.get(item.qid, -1) + 1
        before = current.get(item.item_id)
        if before is None:
            events.append(("add", item, position))
        elif before != item:
            events.append(("edit", item, position))
    wanted_ids = {item.item_id for item in wanted}
    events.extend(("delete", item, 0) for item_id, item in current.items() if item_id not in wanted_ids)
    return events
