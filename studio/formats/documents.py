"""Documents: `docid<TAB>text` lines, or JSONL with `docid|id|pid` and `text|contents|segment`."""

from __future__ import annotations

from studio.domain.errors import InputError
from studio.domain.models import Document
from studio.formats.jsonl import first_field, json_objects, looks_like_jsonl
from studio.formats.text_input import numbered_lines

DOCID_FIELDS = ("docid", "id", "pid", "doc_id", "_id")
TEXT_FIELDS = ("text", "contents", "segment", "body")


def parse_documents(text: str, source: str) -> list[Document]:
    reader = _jsonl_documents if looks_like_jsonl(text) else _tsv_documents
    numbered = reader(text, source)
    seen: dict[str, int] = {}
    for number, doc in numbered:
        if doc.docid in seen:
            raise InputError(
                source, number, f"document {doc.docid!r} is listed twice (first on line {seen[doc.docid]})"
            )
        seen[doc.docid] = number
    return [doc for _, doc in numbered]


def _tsv_documents(text: str, source: str) -> list[tuple[int, Document]]:
    documents = []
    for number, line in numbered_lines(text):
        docid, tab, body = line.partition("\t")
        if not tab or not docid.strip():
            raise InputError(source, number, "expected docid<TAB>text")
        documents.append((number, Document(docid.strip(), body.strip())))
    return documents


def _jsonl_documents(text: str, source: str) -> list[tuple[int, Document]]:
    documents = []
    for number, record in json_objects(text, source):
        docid = first_field(record, DOCID_FIELDS, source, number)
        body = first_field(record, TEXT_FIELDS, source, number)
        title = first_field(record, ("title",), source, number, required=False)
        assert docid is not None and body is not None
        documents.append((number, Document(docid, body, title)))
    return documents
