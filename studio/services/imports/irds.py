"""`studio import irds DATASET-ID`: a collection named as ir_datasets names it, from its local cache.

One command loads the dataset's topics (its queries), its qrels as one label set, and the
documents the project needs: those the qrels judge, the runs rank and the label sets already
loaded label (`--all-docs`: every document). ir_datasets is an optional dependency (the `irds`
extra) and reads only what it has cached: nothing is downloaded (`irds_cache.no_downloads`). Ids
are checked as every reader checks them, and the whole import is one transaction: a refusal
leaves the project as it was.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from studio.domain.errors import InputError, UsageError
from studio.domain.import_report import ImportReport
from studio.domain.models import Document, LabelSetKind, QrelsRow, Topic
from studio.domain.names import MAX_NAME_LENGTH, check_name
from studio.formats.checks import checked_id
from studio.services.imports.irds_cache import NotCached, load_dataset, load_ir_datasets, no_downloads, not_cached_error
from studio.store import Database, catalog, new_batch
from studio.store import labels as label_store
from studio.store.needed_documents import needed_docids

# The fields that hold a document's text in ir_datasets' document types, the most specific first
# (MS MARCO v2.1 segments keep it in `segment`, v2 documents in `body`).
TEXT_FIELDS = ("text", "segment", "body", "passage", "contents")


def default_name(dataset_id: str) -> str:
    """The label set name for a dataset id: every character a file name would trip on becomes `_`
    (`msmarco-passage/trec-dl-2019/judged` -> `msmarco-passage_trec-dl-2019_judged`)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", dataset_id)[:MAX_NAME_LENGTH]


@dataclass
class DatasetContents:
    """What the import takes from a dataset, checked, before anything is written."""

    topics: list[Topic] = field(default_factory=list)
    qrels: list[QrelsRow] = field(default_factory=list)
    repeated_qrels: int = 0
    documents: list[Document] = field(default_factory=list)
    absent: int = 0  # documents the project needs that the dataset does not hold


def _text(record: Any) -> str:
    default = getattr(record, "default_text", None)
    value = default() if callable(default) else getattr(record, "text", "")
    return value if isinstance(value, str) else ""


def _topics(dataset: Any, source: str) -> list[Topic]:
    topics: dict[str, Topic] = {}
    for number, query in enumerate(dataset.queries_iter(), start=1):
        qid = checked_id(str(query.query_id), "qid", source, number)
        text = _text(query).strip()
        if not text:
            raise InputError(source, number, f"topic {qid!r} has an empty text")
        if qid in topics:
            raise InputError(source, number, f"topic {qid!r} is listed twice")
        topics[qid] = Topic(qid, text)
    return list(topics.values())


def _qrels(dataset: Any, source: str) -> tuple[list[QrelsRow], int]:
    grades: dict[tuple[str, str], tuple[float, int]] = {}
    repeated = 0
    for number, qrel in enumerate(dataset.qrels_iter(), start=1):
        qid = checked_id(str(qrel.query_id), "qid", source, number)
        docid = checked_id(str(qrel.doc_id), "docid", source, number)
        grade = float(qrel.relevance)
        earlier = grades.setdefault((qid, docid), (grade, number))
        if earlier[1] != number:
            if earlier[0] != grade:
                raise InputError(
                    source,
                    number,
                    f"({qid}, {docid}) is graded {grade:g} here and {earlier[0]:g} in qrel {earlier[1]};"
                    " trec_eval refuses such qrels",
                )
            repeated += 1
    return [QrelsRow(qid, docid, grade) for (qid, docid), (grade, _) in grades.items()], repeated


def _document(doc: Any, source: str, number: int) -> Document:
    docid = checked_id(str(doc.doc_id), "docid", source, number)
    fields: dict[str, Any] = doc._asdict() if hasattr(doc, "_asdict") else dict(vars(doc))
    text = next((fields[name] for name in TEXT_FIELDS if isinstance(fields.get(name), str)), None)
    title = fields.get("title")
    return Document(
        docid,
        (text if text is not None else _text(doc)).strip(),
        title.strip() or None if isinstance(title, str) else None,
    )


def _documents(docs: Iterable[Any], source: str, wanted: set[str] | None) -> list[Document]:
    """The documents of `docs` whose id is `wanted` (all when None), stopping once all are found."""
    found: dict[str, Document] = {}
    for number, doc in enumerate(docs, start=1):
        if wanted is not None and str(doc.doc_id) not in wanted:
            continue
        document = _document(doc, source, number)
        found.setdefault(document.docid, document)
        if wanted is not None and len(found) == len(wanted):
            break
    return list(found.values())


def read_dataset(irds: Any, dataset: Any, dataset_id: str, needed: set[str], all_docs: bool) -> DatasetContents:
    """Topics, qrels and documents of `dataset`, read from ir_datasets' cache only."""
    contents = DatasetContents()
    source = f"ir_datasets:{dataset_id}"
    try:
        with no_downloads(irds):
            if dataset.has_queries():
                contents.topics = _topics(dataset, f"{source} queries")
            if dataset.has_qrels():
                contents.qrels, contents.repeated_qrels = _qrels(dataset, f"{source} qrels")
            wanted = None if all_docs else needed | {row.docid for row in contents.qrels}
            if dataset.has_docs() and (wanted is None or wanted):
                contents.documents = _documents(dataset.docs_iter(), f"{source} docs", wanted)
                contents.absent = 0 if wanted is None else len(wanted) - len(contents.documents)
    except NotCached as stopped:
        raise not_cached_error(irds, dataset, dataset_id, stopped) from None
    if not (contents.topics or contents.qrels or contents.documents):
        raise UsageError(f"ir_datasets' {dataset_id!r} holds no queries, qrels or documents the project needs")
    return contents


def import_irds(
    db: Database,
    dataset_id: str,
    *,
    name: str | None = None,
    all_docs: bool = False,
    kind: LabelSetKind = LabelSetKind.HUMAN,
    replace: bool = False,
) -> ImportReport:
    """Topics, qrels (one label set, named after the dataset unless `name`) and the documents the
    project needs, all in one transaction."""
    if not dataset_id.strip():
        raise UsageError("the ir_datasets id is empty (ids look like msmarco-passage/trec-dl-2019/judged)")
    set_name = check_name(name if name is not None else default_name(dataset_id), "label set")
    con = db.cursor()
    existing = label_store.label_set_id(con, set_name)
    if existing is not None and not replace:
        raise UsageError(f"label set {set_name!r} already exists (use --replace)")
    irds = load_ir_datasets()
    dataset = load_dataset(irds, dataset_id)
    contents = read_dataset(irds, dataset, dataset_id, needed_docids(con), all_docs)
    source = f"ir_datasets:{dataset_id}"
    report = ImportReport("ir_datasets", [source], [set_name] if contents.qrels else [])
    events = 0
    label_store.create_label_staging(con)
    try:
        label_store.stage_labels(con, 0, contents.qrels)
        with db.transaction() as tx:
            batch = new_batch(tx, "import irds", source)
            catalog.upsert_topics(tx, contents.topics)
            catalog.upsert_documents(tx, contents.documents)
            if contents.qrels:
                set_id = (
                    existing if existing is not None else label_store.create_label_set(tx, set_name, kind.value, source)
                )
                events = label_store.apply_staged_labels(
                    tx, set_id, 0, origin="import", source=source, batch_id=batch, remove_missing=True
                )
    finally:
        label_store.drop_label_staging(con)
    report.counts = {
        "topics": len(contents.topics),
        "labels": len(contents.qrels),
        "events": events,
        "documents": len(contents.documents),
    }
    if not contents.qrels:
        report.warnings.append(f"{dataset_id} has no qrels: no label set was made")
    if contents.repeated_qrels:
        report.warnings.append(f"{contents.repeated_qrels} repeated qrel(s) with the same grade were kept once")
    if contents.absent:
        report.warnings.append(f"{contents.absent} document(s) the project needs are not in {dataset_id}'s collection")
    return report
