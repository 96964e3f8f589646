"""Documents: `docid<TAB>text` lines, or JSONL with `docid|id|pid` and `text|contents|segment`.

The MS MARCO v2.1 segmented corpus (TREC RAG 2024 and 2025) is such JSONL as published:
`{"docid", "url", "title", "headings", "segment", "start_char", "end_char"}`, its docids segment
ids like `msmarco_v2.1_doc_00_0#3_1234` (`#` is part of an id); the text is `segment`, the title
kept, the rest not. Some exports name the id `segment_id`.

Published passage files often list a passage once per topic that judged it (one line per qrels
row). A repeat is the same document when its text and title are equal strings after the
reader's own decoding (JSON unescaping; in TSV the text without surrounding whitespace, as it is
stored): it is loaded once and counted. A repeat with a different text or title is refused,
naming both lines, unless the caller keeps the first or the last (`OnDuplicate`). The same rules
hold across the files of one import.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from studio.domain.choices import OnDuplicate
from studio.domain.errors import InputError
from studio.domain.models import Document
from studio.formats.checks import checked_id
from studio.formats.jsonl import first_field, id_field, json_objects, looks_like_jsonl
from studio.formats.text_input import Text, numbered_lines

DOCID_FIELDS = ("docid", "id", "pid", "doc_id", "_id", "segment_id")
TEXT_FIELDS = ("text", "contents", "segment", "body")


@dataclass
class DocumentSet:
    """Documents of one or more files by docid, with their repeats counted or refused."""

    on_duplicate: OnDuplicate = OnDuplicate.ERROR
    found: dict[str, tuple[Document, str, int]] = field(default_factory=dict)  # docid -> (doc, file, line)
    repeated: int = 0  # repeats equal to the document already read, loaded once
    conflicting: int = 0  # repeats with a different text or title, settled by `on_duplicate`
    first_repeat: str | None = None  # where the first identical repeat was, for the report

    def add_file(self, text: Text, source: str) -> None:
        reader = _jsonl_documents if looks_like_jsonl(text) else _tsv_documents
        for number, document in reader(text, source):
            self.add(document, source, number)

    def add(self, document: Document, source: str, line: int) -> None:
        earlier = self.found.get(document.docid)
        if earlier is None:
            self.found[document.docid] = (document, source, line)
            return
        before, first_source, first_line = earlier
        if before == document:
            self.repeated += 1
            if self.first_repeat is None:
                self.first_repeat = f"{document.docid!r} at {first_source}:{first_line} and {source}:{line}"
            return
        if self.on_duplicate is OnDuplicate.ERROR:
            what = "text" if before.text != document.text else "title"
            raise InputError(
                source,
                line,
                f"document {document.docid!r} is listed again with a different {what}"
                f" (first at {first_source}:{first_line}); choose with --on-duplicate first|last",
            )
        self.conflicting += 1
        if self.on_duplicate is OnDuplicate.LAST:
            self.found[document.docid] = (document, source, line)

    @property
    def documents(self) -> list[Document]:
        """One document per docid, in the order docids first appear."""
        return [document for document, _, _ in self.found.values()]

    def warnings(self) -> list[str]:
        said = []
        if self.repeated:
            said.append(
                f"{self.repeated} repeated document line(s) with the same text were loaded once"
                f" (the first: {self.first_repeat})"
            )
        if self.conflicting:
            said.append(
                f"{self.conflicting} document line(s) repeat a docid with a different text:"
                f" kept the {self.on_duplicate.value}"
            )
        return said


def parse_documents(text: Text, source: str, on_duplicate: OnDuplicate = OnDuplicate.ERROR) -> list[Document]:
    """The documents of one file, identical repeats once."""
    found = DocumentSet(on_duplicate)
    found.add_file(text, source)
    return found.documents


def _tsv_documents(text: Text, source: str) -> list[tuple[int, Document]]:
    documents = []
    for number, line in numbered_lines(text):
        docid, tab, body = line.partition("\t")
        if not tab or not docid.strip():
            raise InputError(source, number, "expected docid<TAB>text")
        documents.append((number, Document(checked_id(docid.strip(" "), "docid", source, number), body.strip())))
    return documents


def _jsonl_documents(text: Text, source: str) -> list[tuple[int, Document]]:
    documents = []
    for number, record in json_objects(text, source):
        docid = id_field(record, DOCID_FIELDS, source, number)
        body = first_field(record, TEXT_FIELDS, source, number)
        title = first_field(record, ("title",), source, number, required=False)
        assert docid is not None and body is not None
        documents.append((number, Document(docid, body, title)))
    return documents
