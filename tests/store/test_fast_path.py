"""The DuckDB fast path must agree with the precise parser, or hand the file back to it.

Contract: when the fast path accepts a file, it stages exactly the rows `parse_run` /
`parse_qrels` read; whenever the precise parser refuses a file, the fast path refuses it too.
A run is read either as one run (the tag of its first row on every row, as an import without
--name reads it) or with its tags mixed (as an import with --name reads it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import WriteFile
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from studio.domain.errors import InputError
from studio.domain.names import id_problem
from studio.formats.text_input import first_line, read_text
from studio.formats.trec import parse_qrels, parse_run, split_columns
from studio.store import labels, runs
from studio.store.database import Connection
from studio.store.fast_path import ID, FastPathRefused

BOM = b"\xef\xbb\xbf"
QIDS = ["1", "2", "999", "1000", "0999", "q_1", "Q0", "é"]
DOCIDS = [
    "999",
    "1000",
    "0",
    "00",
    "d1",
    "D1",
    "doc-1",
    "msmarco_passage_00_1",
    "ñ",
    '"x"',
    "a'b",
    "#c",
    "NULL",
    "\\",
    "[b]",
    "d,1",
    "d\u200b",  # an invisible formatting character: no whitespace, no control character
    "d\x01",  # control characters: refused by both readers
    "d\x7f",
    "\x1b[31mred",
]
GOOD_SCORES = [
    "0",
    "3",
    "-2",
    "1.25",
    "-0.5",
    "+1.5",
    ".5",
    "5.",
    "1e3",
    "1E-3",
    "-2.5e+2",
    "00.5",
    "-0",
    "12345678901234567890",
    "0.1000000000000000055511151231257827",
    "1e-400",
    "1.7976931348623157e308",
]
BAD_SCORES = [
    "nan",
    "NaN",
    "inf",
    "-Infinity",
    "1e400",
    "abc",
    "1,5",
    "0x1A",
    "1e",
    "",
    "1.2.3",
    "--1",
    "1_0",
    "\u0661",
    "\uff11.5",
    "2\u00a0",
]
GOOD_RANKS = ["1", "2", "10", "0", "-1", "+3", "007", "9223372036854775807"]
BAD_RANKS = ["1.0", "1.6", "1e2", "x", "", "0x1", "1_0", "\uff13", "9223372036854775808"]
SEPARATORS = [" "] * 12 + ["\t"] * 6 + ["  ", " \t", "\t\t", "\t "]
COMMENTS = ["#", "# a comment", "#1 Q0 d1 1 2 run1", "  # indented", "#\u00a0odd space"]
Row = tuple[Any, ...]  # a run or qrels row as a tuple of its columns
# Characters str.split() would cut on, and a control character: they stay inside their column.
AWKWARD_SPACE = ["\u00a0", "\x0b", "\x0c", "\x1c", "\u3000", "\x00"]


def precise(parse: Callable[[str, str], list[Row]], path: Path) -> Counter[Row] | None:
    try:
        return Counter(parse(read_text(path), str(path)))
    except InputError:
        return None


@st.composite
def trec_file(draw: st.DrawFn, columns: Callable[[], st.SearchStrategy[list[str]]]) -> bytes:
    """Bytes of a TREC file: lines of `columns()` fields with varied spacing and line endings."""
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 8))):
        if draw(st.integers(0, 8)) == 0:
            lines.append(draw(st.sampled_from(COMMENTS)))
        fields = draw(columns())
        if draw(st.integers(0, 30)) == 0:  # a column too few or too many (ignored junk in a run)
            fields = fields[:-1] if draw(st.booleans()) else [*fields, "x"]
        if draw(st.integers(0, 30)) == 0:
            i = draw(st.integers(0, len(fields) - 1))
            fields[i] += draw(st.sampled_from(AWKWARD_SPACE)) + "z"
        line = fields[0]
        for field in fields[1:]:
            line += draw(st.sampled_from(SEPARATORS)) + field
        if draw(st.integers(0, 10)) == 0:
            line = draw(st.sampled_from([" ", "\t"])) + line
        if draw(st.integers(0, 10)) == 0:
            line += draw(st.sampled_from([" ", "  ", "\t"]))
        lines.append(line)
        if draw(st.integers(0, 12)) == 0:
            lines.append(draw(st.sampled_from(["", " ", "\t"])))
    ending = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    text = ending.join(lines)
    if len(lines) > 0 and draw(st.booleans()):
        text += ending
    text += ending * draw(st.integers(0, 2))
    data = text.encode("utf-8")
    if draw(st.integers(0, 4)) == 0:
        data = BOM + data
    return data


# Texts of the characters numbers are made of, and of those Python reads as parts of numbers too.
NUMBER_LIKE = st.text(alphabet="0123456789+-.eE_\u0663\uff11", min_size=1, max_size=8)


@st.composite
def run_columns(draw: st.DrawFn) -> list[str]:
    score = (
        draw(st.one_of(st.sampled_from(BAD_SCORES), NUMBER_LIKE))
        if draw(st.integers(0, 15)) == 0
        else draw(
            st.one_of(
                st.sampled_from(GOOD_SCORES),
                st.floats(allow_nan=False).map(repr),
                st.integers(-(10**6), 10**6).map(str),
                st.floats(-1e6, 1e6).map(lambda x: f"{x:.3e}"),
            )
        )
    )
    rank = (
        draw(st.one_of(st.sampled_from(BAD_RANKS), NUMBER_LIKE))
        if draw(st.integers(0, 15)) == 0
        else draw(st.one_of(st.sampled_from(GOOD_RANKS), st.integers(1, 1000).map(str)))
    )
    return [
        draw(st.sampled_from(QIDS)),
        "Q0",
        draw(st.sampled_from(DOCIDS)),
        rank,
        score,
        draw(st.sampled_from(["run1", "run1", "r-2"])),
    ]


@st.composite
def qrels_columns(draw: st.DrawFn) -> list[str]:
    grade = (
        draw(st.one_of(st.sampled_from(BAD_SCORES), NUMBER_LIKE))
        if draw(st.integers(0, 15)) == 0
        else draw(
            st.one_of(
                st.sampled_from(["0", "1", "2", "3", "-1", "0.5", ".25", "+1", "2.", "1e0", "1E-1"]),
                st.floats(allow_nan=False, allow_infinity=False).map(repr),
            )
        )
    )
    return [draw(st.sampled_from(QIDS)), draw(st.sampled_from(["0", "Q0", "1"])), draw(st.sampled_from(DOCIDS)), grade]


def parsed_run(text: str, source: str) -> list[Row]:
    return [(r.qid, r.docid, r.rank, r.score) for r in parse_run(text, source).rows]


def parsed_mixed_run(text: str, source: str) -> list[Row]:
    return [(r.qid, r.docid, r.rank, r.score) for r in parse_run(text, source, mixed_tags=True).rows]


def first_tag(path: Path) -> str | None:
    """The tag of a run file's first row, as an import reads it to name the run."""
    try:
        columns = split_columns(first_line(path, comment="#")[1])
    except InputError:
        return None
    return columns[5] if len(columns) >= 6 else None


def parsed_qrels(text: str, source: str) -> list[Row]:
    return [(r.qid, r.docid, r.grade) for r in parse_qrels(text, source).rows]


CLEAN_RUN = b"1 Q0 999 1 2.5 run1\n1 Q0 1000 2 2.5 run1\n2 Q0 999 1 -1e-3 run1\n"
CLEAN_QRELS = b"1 0 999 2\n1 0 1000 0\n2 Q0 999 0.5\n"


@settings(max_examples=examples(300), deadline=None)
@given(files=st.lists(st.tuples(trec_file(run_columns), st.booleans()), min_size=1, max_size=2), named=st.booleans())
@example(files=[(CLEAN_RUN, False)], named=False)
@example(files=[(BOM + CLEAN_RUN.replace(b"\n", b"\r\n"), True), (CLEAN_RUN + b"\n\n", False)], named=False)
@example(files=[(b"1 Q0 d1 1 2 run1\n1 Q0 d1 2 1 run1\n", False)], named=False)
@example(files=[(b"1 Q0 d1 1.6 2 run1\n", False)], named=False)
@example(files=[(b"1 Q0 d1  2 run1\n", False)], named=False)
@example(files=[(b"1 Q0 d\xc2\xa01 1 2 run1\n", False)], named=False)
@example(files=[(b"1 Q0 d1 1 2 run1\r1 Q0 d2 2 1 run1\r", False)], named=False)
@example(files=[(b"1 Q0 d1 1 2 run1\n1 Q0 d2 2 1 run1\r1 Q0 d3 3 1 run1\n", False)], named=False)
@example(files=[(b"1 Q0 d1 1 2 run1\r\n1 Q0 d2 2 1 run1 junk\r1 Q0 d3 3 1 run1\r\n", False)], named=False)
@example(files=[(b"1\tQ0\td1\t1\t2\trun1\tjunk\xc2\xa0x\n# c\n\t1 Q0  d2\t2 1 run1 \n", True)], named=False)
@example(files=[(b"1 Q0 d1 1 2 run1\x1f\n1 Q0 d2 2 1 run1\x1fx\n", False)], named=False)
@example(files=[(b"1 Q0 d1 1 2 run1\n1 Q0 d2 2 1 run1\x1f\n", False)], named=False)
@example(files=[(b"1 Q0 d1 1 2 run1\n1 Q0 d2 2 1 run1\x1f\x1f\n", False)], named=False)
@example(files=[(b"1 Q0 d1 1 2 run1\n1 Q0 d2 2 1 run1\x00\x00\n", False)], named=False)
@example(files=[(b"1 Q0 d1 1 2 run1\n1 Q0 d2 2 1 run2\n", False)], named=False)
@example(files=[(b"1 Q0 d1 1 2 run1\n1 Q0 d2 2 1 run2\n", False)], named=True)
@example(files=[(b"1 Q0 d1 1 2 run1\n1 Q0 d2 2 1e999 run1\n", False)], named=False)
@example(files=[(b"# nothing\n  # but comments\n", False)], named=False)
@example(files=[(b"", False)], named=False)
def test_fast_run_reader_agrees_with_the_precise_parser(
    con: Connection, write_file: WriteFile, files: list[tuple[bytes, bool]], named: bool
) -> None:
    paths = [write_file(data, compress) for data, compress in files]
    expected = [precise(parsed_mixed_run if named else parsed_run, path) for path in paths]
    tags = None if named else {index: first_tag(path) or "" for index, path in enumerate(paths)}
    runs.create_run_staging(con)
    try:
        runs.stage_run_files(con, list(enumerate(paths)), tags)
    except FastPathRefused:
        return
    staged = con.execute("SELECT file_index, qid, docid, rank, score FROM staged_run_rows").fetchall()
    assert None not in expected, "the fast path accepted a file the precise parser refuses"
    for index, rows in enumerate(expected):
        assert Counter(row[1:] for row in staged if row[0] == index) == rows


@settings(max_examples=examples(300), deadline=None)
@given(data=trec_file(qrels_columns), compress=st.booleans())
@example(data=CLEAN_QRELS, compress=False)
@example(data=BOM + CLEAN_QRELS.replace(b"\n", b"\r\n") + b"\r\n", compress=True)
@example(data=b"1 0 d1 2\n1 0 d1 2\n", compress=False)
@example(data=b"1 0 d1 \n", compress=False)
@example(data=b"1  d1 1\n", compress=False)
@example(data=b"1 0 d1 1\r1 0 d2 0\r", compress=False)
@example(data=b"1 0 d1 1 extra\n", compress=False)
@example(data=b"# c\n1\t0\td1\t1\n  #\n1  0 d2\t 0 \n", compress=True)
@example(data=b"\n", compress=False)
def test_fast_qrels_reader_agrees_with_the_precise_parser(
    con: Connection, write_file: WriteFile, data: bytes, compress: bool
) -> None:
    path = write_file(data, compress)
    expected = precise(parsed_qrels, path)
    labels.create_label_staging(con)
    try:
        labels.stage_qrels_file(con, 0, path)
    except FastPathRefused:
        return
    staged = con.execute("SELECT qid, docid, grade FROM staged_labels").fetchall()
    assert expected is not None, "the fast path accepted a file the precise parser refuses"
    assert Counter(staged) == expected


# The contract above holds trivially for a fast path that refuses everything: it must not.


def test_fast_path_takes_clean_runs_plain_gzipped_crlf_and_with_bom(con: Connection, write_file: WriteFile) -> None:
    variants = [CLEAN_RUN, BOM + CLEAN_RUN.replace(b"\n", b"\r\n")]
    paths = [write_file(data, compress) for data in variants for compress in (False, True)]
    runs.create_run_staging(con)
    runs.stage_run_files(con, list(enumerate(paths)))
    staged = con.execute("SELECT file_index, qid, docid, rank, score FROM staged_run_rows").fetchall()
    for index, path in enumerate(paths):
        assert Counter(row[1:] for row in staged if row[0] == index) == precise(parsed_run, path)


def test_fast_path_takes_clean_qrels_plain_gzipped_crlf_and_with_bom(con: Connection, write_file: WriteFile) -> None:
    for data in (CLEAN_QRELS, BOM + CLEAN_QRELS.replace(b"\n", b"\r\n")):
        for compress in (False, True):
            path = write_file(data, compress)
            labels.create_label_staging(con)
            labels.stage_qrels_file(con, 0, path)
            staged = con.execute("SELECT qid, docid, grade FROM staged_labels").fetchall()
            assert Counter(staged) == precise(parsed_qrels, path)


@pytest.mark.parametrize("twice", [None, 0, 63, 64, 69])
def test_a_docid_ranked_twice_is_found_in_any_of_many_files(
    con: Connection, write_file: WriteFile, twice: int | None
) -> None:
    # Every file ranks the same documents; only file `twice` ranks one of them twice.
    paths = [
        write_file(CLEAN_RUN + (b"2 Q0 999 2 -2 run1\n" if index == twice else b""), compress=False)
        for index in range(70)
    ]
    runs.create_run_staging(con)
    if twice is None:
        runs.stage_run_files(con, list(enumerate(paths)))
        assert con.execute("SELECT count(*) FROM staged_run_rows").fetchone() == (70 * 3,)
    else:
        with pytest.raises(FastPathRefused):
            runs.stage_run_files(con, list(enumerate(paths)))


SEPARATORS_OF_STR_SPLIT = [chr(c) for c in range(0x110000) if chr(c).isspace() and chr(c) not in " \t"]


@pytest.mark.parametrize("char", SEPARATORS_OF_STR_SPLIT, ids=lambda c: f"U+{ord(c):04X}")
def test_fast_path_refuses_a_field_holding_any_other_separator_of_str_split(
    con: Connection, write_file: WriteFile, char: str
) -> None:
    path = write_file(f"1 Q0 d{char}z 1 2 run1\n".encode(), compress=False)
    runs.create_run_staging(con)
    with pytest.raises(FastPathRefused):
        runs.stage_run_files(con, [(0, path)])
    path = write_file(f"1 0 d{char}z 1\n".encode(), compress=False)
    labels.create_label_staging(con)
    with pytest.raises(FastPathRefused):
        labels.stage_qrels_file(con, 0, path)


def test_fast_path_splits_on_tabs_and_runs_of_whitespace_as_str_split_does(
    con: Connection, write_file: WriteFile
) -> None:
    path = write_file(b"\t1\tQ0 \t d1\t\t1  2\trun1 \t junk\n", compress=False)
    runs.create_run_staging(con)
    runs.stage_run_files(con, [(0, path)])
    assert con.execute("SELECT qid, docid, rank, score FROM staged_run_rows").fetchall() == [("1", "d1", 1, 2.0)]


@pytest.mark.parametrize("char", ["é", "\u200b", "\ufeff", "🙂", "[", "*"])
def test_fast_path_keeps_other_unusual_characters(con: Connection, write_file: WriteFile, char: str) -> None:
    path = write_file(f"1 Q0 d{char}z 1 2 run1\n".encode(), compress=False)
    runs.create_run_staging(con)
    runs.stage_run_files(con, [(0, path)])
    assert con.execute("SELECT docid FROM staged_run_rows").fetchall() == [(f"d{char}z",)]


@pytest.mark.parametrize("char", ["\x00", "\x01", "\x1b", "\x7f", "\x85", "\x9f"])
def test_fast_path_refuses_an_id_holding_a_control_character(con: Connection, write_file: WriteFile, char: str) -> None:
    path = write_file(f"1 Q0 d{char}z 1 2 run1\n".encode(), compress=False)
    runs.create_run_staging(con)
    with pytest.raises(FastPathRefused):
        runs.stage_run_files(con, [(0, path)])
    assert precise(parsed_run, path) is None


def test_the_fast_paths_pattern_of_an_id_is_the_validators_rule_on_every_code_point(con: Connection) -> None:
    # DuckDB's regular expressions name the control characters but not Python's whitespace: the
    # pattern lists the rest, and must agree with `id_problem` everywhere.
    accepted = con.execute(
        "SELECT list(i) FROM (SELECT * FROM range(1, 55296) UNION ALL SELECT * FROM range(57344, 1114112)) AS t(i)"
        f" WHERE regexp_full_match('d' || chr(i::INTEGER) || 'z', '{ID}')"
    ).fetchone()
    assert accepted is not None
    expected = [c for c in range(1, 0x110000) if not 0xD800 <= c <= 0xDFFF and id_problem(f"d{chr(c)}z") is None]
    assert sorted(accepted[0]) == expected


def test_a_row_with_another_tag_refuses_the_fast_path_unless_tags_may_mix(
    con: Connection, write_file: WriteFile
) -> None:
    path = write_file(b"1 Q0 d1 1 2 run1\n1 Q0 d2 2 1 run2\n", compress=False)
    runs.create_run_staging(con)
    with pytest.raises(FastPathRefused):
        runs.stage_run_files(con, [(0, path)], {0: "run1"})
    runs.stage_run_files(con, [(0, path)])
    assert con.execute("SELECT count(*) FROM staged_run_rows").fetchone() == (2,)


@pytest.mark.parametrize("name", ["r[1].txt", "r*.txt", "r?.txt", "r{1,2}.txt", "r\\1.txt"])
def test_a_path_holding_a_pattern_character_is_handed_to_the_precise_parser(
    con: Connection, tmp_path: Path, name: str
) -> None:
    # DuckDB would read `r[1].txt` as the pattern matching r1.txt: such a path never reaches it.
    (tmp_path / "r1.txt").write_bytes(b"9 Q0 other 1 1 run1\n")
    path = tmp_path / name
    path.write_bytes(CLEAN_RUN)
    runs.create_run_staging(con)
    with pytest.raises(FastPathRefused):
        runs.stage_run_files(con, [(0, path)])
    labels.create_label_staging(con)
    path.write_bytes(CLEAN_QRELS)
    with pytest.raises(FastPathRefused):
        labels.stage_qrels_file(con, 0, path)
