"""One fast path for every whitespace layout: a TREC file and its re-writings (tabs, spaces, mixed runs
of both, leading and trailing whitespace, CRLF, a byte-order mark, gzip, `#` comment lines, blank lines,
and for runs fields after the sixth) stage the same rows, through DuckDB's fast path (never refused)
and through the precise parser alike."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from helpers import WriteFile
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from studio.domain.numbers import GRADE_LIMIT
from studio.formats.text_input import read_text
from studio.formats.trec import parse_qrels, parse_run
from studio.store import labels, runs
from studio.store.database import Connection

QIDS = ["1037798", "104861", "1", "0999", "q_1", "Q0", "é", "x#"]
DOCIDS = [
    "8726436",
    "999",
    "1000",
    "00",
    "d1",
    "D1",
    "msmarco_passage_00_1",
    "#c",
    '"x"',
    "a'b",
    "NULL",
    "\\",
    "d,1",
    "ñ",
    "🙂",
]
RANKS = ["1", "2", "10", "0", "-1", "+3", "007"]
SCORES = ["13.27", "0", "-2", "1.25", "+1.5", ".5", "5.", "1e3", "1E-3", "-0", "1e-400", "00.5"]
GAPS = [" ", "\t", "  ", "\t\t", " \t", "\t ", "   \t  "]
EDGES = ["", "", " ", "\t", "  \t "]  # before the first field, after the last
COMMENTS = ["#", "# a comment", "#\tqid Q0 docid rank score tag", "## 1 Q0 d 1 2 t", "# only\u00a0odd\x0bspace"]
JUNK = ["junk", "x#y", "-", "é", "j\u00a0k", "1 Q0 d 1 2 t", "\x0c"]
BOM = b"\xef\xbb\xbf"
Row = tuple[Any, ...]


@st.composite
def run_file(draw: st.DrawFn) -> list[list[str]]:
    """Rows of a valid run (a docid at most once per topic), as the text of their six columns."""
    keys = draw(
        st.lists(st.tuples(st.sampled_from(QIDS), st.sampled_from(DOCIDS)), min_size=1, max_size=8, unique=True)
    )
    tag = draw(st.sampled_from(["bm25", "run-1", "Q0"]))
    return [
        [
            qid,
            "Q0",
            docid,
            draw(st.sampled_from(RANKS)),
            draw(st.one_of(st.sampled_from(SCORES), st.floats(allow_nan=False, allow_infinity=False).map(repr))),
            tag,
        ]
        for qid, docid in keys
    ]


@st.composite
def qrels_file(draw: st.DrawFn) -> list[list[str]]:
    keys = draw(
        st.lists(st.tuples(st.sampled_from(QIDS), st.sampled_from(DOCIDS)), min_size=1, max_size=8, unique=True)
    )
    return [
        [
            qid,
            draw(st.sampled_from(["0", "Q0"])),
            docid,
            draw(
                st.one_of(
                    st.sampled_from(["0", "1", "2", "3", "-1", "0.5", ".25", "+1", "2.", "1e0"]),
                    # any grade (within ±2**63: beyond it a grade is refused, a case of its own)
                    st.floats(min_value=-GRADE_LIMIT, max_value=GRADE_LIMIT).map(repr),
                )
            ),
        ]
        for qid, docid in keys
    ]


def canonical(rows: list[list[str]]) -> bytes:
    return "".join(" ".join(fields) + "\n" for fields in rows).encode()


@st.composite
def rewritten(draw: st.DrawFn, rows: list[list[str]], junk: bool) -> tuple[bytes, bool]:
    """The rows written another way: any gaps and edges of spaces and tabs, comment and blank lines,
    extra fields (runs only), LF or CRLF, maybe a BOM, maybe gzipped."""
    lines: list[str] = []
    for fields in rows:
        if draw(st.integers(0, 3)) == 0:
            lines.append(draw(st.sampled_from(EDGES)) + draw(st.sampled_from(COMMENTS)))
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(EDGES)))
        extra = draw(st.lists(st.sampled_from(JUNK), max_size=3)) if junk else []
        line = draw(st.sampled_from(EDGES)) + fields[0]
        for field in [*fields[1:], *extra]:
            line += draw(st.sampled_from(GAPS)) + field
        lines.append(line + draw(st.sampled_from(EDGES)))
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    text = ending.join(lines) + (ending if draw(st.booleans()) else "")
    data = (BOM if draw(st.booleans()) else b"") + text.encode()
    return data, draw(st.booleans())


def precise_run(path: Path) -> Counter[Row]:
    return Counter((r.qid, r.docid, r.rank, r.score) for r in parse_run(read_text(path), str(path)).rows)


def precise_qrels(path: Path) -> Counter[Row]:
    return Counter((r.qid, r.docid, r.grade) for r in parse_qrels(read_text(path), str(path)).rows)


@settings(max_examples=examples(150), deadline=None)
@given(data=st.data())
def test_a_run_and_its_rewritings_stage_the_same_rows_on_the_fast_path(
    con: Connection, write_file: WriteFile, data: st.DataObject
) -> None:
    rows = data.draw(run_file())
    versions = [(canonical(rows), False), *(data.draw(rewritten(rows, junk=True)) for _ in range(3))]
    paths = [write_file(content, compress) for content, compress in versions]
    expected = precise_run(paths[0])
    assert all(precise_run(path) == expected for path in paths[1:])
    runs.create_run_staging(con)
    runs.stage_run_files(con, list(enumerate(paths)))  # one pass, never refused
    staged = con.execute("SELECT file_index, qid, docid, rank, score FROM staged_run_rows").fetchall()
    for index, _ in enumerate(paths):
        assert Counter(row[1:] for row in staged if row[0] == index) == expected


@settings(max_examples=examples(150), deadline=None)
@given(data=st.data())
def test_qrels_and_their_rewritings_stage_the_same_grades_on_the_fast_path(
    con: Connection, write_file: WriteFile, data: st.DataObject
) -> None:
    rows = data.draw(qrels_file())
    versions = [(canonical(rows), False), *(data.draw(rewritten(rows, junk=False)) for _ in range(3))]
    expected = precise_qrels(write_file(*versions[0]))
    for content, compress in versions:
        path = write_file(content, compress)
        assert precise_qrels(path) == expected
        labels.create_label_staging(con)
        labels.stage_qrels_file(con, 0, path)  # never refused
        assert Counter(con.execute("SELECT qid, docid, grade FROM staged_labels").fetchall()) == expected
