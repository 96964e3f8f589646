"""A list of topic ids (`--topics-file`): the topics a comparison or a leaderboard is narrowed to.

Accepted as people keep such lists: one qid per line (`#` starts a comment), a topics file
(`qid<TAB>text`: the first field is the qid), a qrels or run file (the first column), or JSONL
topics (`qid|query_id|id|topic_id`); gzip or not. A qid listed twice counts once. Ids are checked
as every importer checks them.
"""

from __future__ import annotations

from pathlib import Path

from studio.domain.errors import InputError
from studio.formats.checks import checked_id
from studio.formats.jsonl import id_field, json_objects, looks_like_jsonl
from studio.formats.text_input import Text, numbered_lines, read_lines
from studio.formats.topics import QID_FIELDS


def parse_topic_list(text: Text, source: str) -> tuple[str, ...]:
    """The qids of `text` in the order first listed."""
    found: dict[str, None] = {}
    if looks_like_jsonl(text):
        for number, record in json_objects(text, source):
            qid = id_field(record, QID_FIELDS, source, number)
            assert qid is not None
            found.setdefault(qid)
    else:
        for number, line in numbered_lines(text):
            content = line.split("#", 1)[0].strip()
            if not content:
                continue
            found.setdefault(checked_id(content.split()[0], "qid", source, number))
    if not found:
        raise InputError(source, None, "no topic ids in the file (one qid per line)")
    return tuple(found)


def read_topic_list(path: Path) -> tuple[str, ...]:
    """The qids listed in the file at `path` (see the module's docstring)."""
    return parse_topic_list(read_lines(path), str(path))
