"""`studio import …` refuses malformed input whole: exit 2, `file:LINE: reason` on stderr,
and the project exactly as it was. Published variants (CRLF, BOM, gzip) are accepted."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import Studio

from studio.services.project import Project

# The fixtures of conftest.py: a file written into tmp_path, and what `studio list …` shows.
Write = Callable[[str, str | bytes], Path]
Listings = Callable[[], dict[str, Any]]

GOOD_RUN = "q1 Q0 d1 1 3 new\nq1 Q0 d2 2 2 new\nq2 Q0 d1 1 1 new\n"
GOOD_QRELS = "q1 0 d1 1\nq1 0 d3 0.5\nq2 0 d1 3\n"

MALFORMED = {
    "run with a missing column": (
        "run",
        "q1 Q0 d1 1 3 new\nq1 Q0 d2 2 2 new\nq1 Q0 d3 3 new\n",
        3,
        "expected at least 6 columns",
    ),
    "run with a bare CR line end": (
        "run",
        "q1 Q0 d1 1 3 new\nq1 Q0 d2 2 2 new\rq1 Q0 d3 3 1 new\n",
        2,
        "carriage return",
    ),
    "qrels with an extra column": ("qrels", "q1 0 d1 1\nq1 0 d2 0 x\n", 2, "expected 4 columns"),
    "qrels with a missing column": ("qrels", "q1 0 d1 1\nq1 d2 0\n", 2, "expected 4 columns"),
    "non-numeric score": ("run", "q1 Q0 d1 1 3 new\n\nq1 Q0 d2 2 high new\n", 3, "score 'high'"),
    "NaN score": ("run", "q1 Q0 d1 1 nan new\n", 1, "score 'nan'"),
    "non-numeric rank": ("run", "q1 Q0 d1 1 3 new\nq1 Q0 d2 second 2 new\n", 2, "rank 'second'"),
    "fractional rank": ("run", "q1 Q0 d1 1 3 new\nq1 Q0 d2 1.6 2 new\n", 2, "rank '1.6'"),
    "non-numeric grade": ("qrels", "q1 0 d1 1\nq1 0 d2 relevant\n", 2, "grade 'relevant'"),
    "empty grade column": ("qrels", "q1 0 d1 1\nq1 0 d2 \n", 2, "expected 4 columns"),
    "docid ranked twice": (
        "run",
        "q1 Q0 d1 1 3 new\nq2 Q0 d1 1 3 new\nq1 Q0 d2 2 2 new\nq1 Q0 d1 3 1 new\n",
        4,
        "ranked twice",
    ),
    "pair graded twice": ("qrels", "q1 0 d1 1\nq1 0 d2 0\nq1 0 d1 2\n", 3, "--on-duplicate"),
    "invalid UTF-8 in a run": ("run", b"q1 Q0 d1 1 3 new\nq1 Q0 d2 2 2 new\nq1 Q0 d\xe9 3 1 new\n", 3, "invalid UTF-8"),
    "invalid UTF-8 in qrels": ("qrels", b"q1 0 d1 1\nq1 0 d\xff 0\n", 2, "invalid UTF-8"),
    "bad JSON in topics": ("topics", '{"qid": "q9", "text": "x"}\n{"qid": "q8", "text": }\n', 2, "invalid JSON"),
    "repeated topic": ("topics", "q9\tx\nq8\ty\nq9\tz\n", 3, "listed twice"),
    "bad JSON in docs": ("docs", '{"docid": "d9", "text": "x"}\n\n{"docid": "d8", "text": "y"\n', 3, "invalid JSON"),
    "bad JSON in a bank": ("bank", '{"qid": "q1", "nuggets": ["a"]}\n["q2"]\n', 2, "JSON object"),
    "bad importance in a bank": ("bank", "q1_1\tA\tvital\nq1_2\tB\tkey\n", 2, "not vital or okay"),
}


@pytest.mark.parametrize(("command", "content", "line", "reason"), MALFORMED.values(), ids=MALFORMED)
def test_malformed_file_is_refused_with_file_line_and_reason(
    studio: Studio,
    write: Write,
    loaded: dict[str, Any],
    listings: Listings,
    command: str,
    content: str | bytes,
    line: int,
    reason: str,
) -> None:
    path = write("bad.txt", content)
    result = studio("import", command, path)
    assert result.exit_code == 2, result.output
    assert f"{path}:{line}: " in result.stderr
    assert reason in result.stderr
    assert listings() == loaded


@pytest.mark.parametrize("command", ["run", "qrels", "topics", "docs", "bank"])
@pytest.mark.parametrize("content", [b"", b"\n \r\n"], ids=["empty", "blank"])
def test_empty_file_is_refused(
    studio: Studio, write: Write, loaded: dict[str, Any], listings: Listings, command: str, content: str | bytes
) -> None:
    path = write("empty.txt", content)
    result = studio("import", command, path)
    assert result.exit_code == 2, result.output
    assert str(path) in result.stderr and "empty" in result.stderr
    assert listings() == loaded


def test_markup_like_text_in_an_error_is_shown_as_written(studio: Studio, write: Write, loaded: dict[str, Any]) -> None:
    path = write("bad.txt", "q1 Q0 [b] 1 3 new\nq1 Q0 [b] 2 2 new\n")
    result = studio("import", "run", path)
    assert result.exit_code == 2
    assert f"{path}:2: docid '[b]' is ranked twice" in result.stderr


def test_a_bad_file_among_good_run_files_loads_none_of_them(
    studio: Studio, write: Write, loaded: dict[str, Any], listings: Listings
) -> None:
    first = write("first.txt", GOOD_RUN.replace("new", "first"))
    bad = write("bad.txt", "q1 Q0 d1 1 3 bad\nq1 Q0 d2 2 x bad\n")
    last = write("last.txt", GOOD_RUN.replace("new", "last"))
    result = studio("import", "run", first, bad, last)
    assert result.exit_code == 2
    assert f"{bad}:2: " in result.stderr and "score 'x'" in result.stderr
    assert listings() == loaded


def test_a_run_name_already_loaded_is_refused_unless_replaced(
    studio: Studio, write: Write, loaded: dict[str, Any], listings: Listings, db: Path
) -> None:
    again = write("again.txt", "q1 Q0 d3 1 9 base\nq3 Q0 d1 1 8 base\n")
    result = studio("import", "run", again)
    assert result.exit_code == 2
    assert "base" in result.stderr and "--replace" in result.stderr
    assert listings() == loaded

    result = studio("import", "run", again, "--replace")
    assert result.exit_code == 0, result.output
    runs = {run["name"]: (run["topics"], run["rows"]) for run in listings()["runs"]}
    assert runs == {"base": (2, 2)}
    with Project.open(db) as project:
        rows = project.db.cursor().execute("SELECT qid, docid, rank, score FROM run_rows").fetchall()
    assert sorted(rows) == [("q1", "d3", 1, 9.0), ("q3", "d1", 1, 8.0)]


def grades(db: Path, label_set: str) -> dict[tuple[str, str], float]:
    with Project.open(db) as project:
        rows = (
            project.db.cursor()
            .execute(
                "SELECT qid, docid, grade FROM labels JOIN label_sets USING (label_set_id) WHERE name = ?",
                [label_set],
            )
            .fetchall()
        )
    return {(qid, docid): grade for qid, docid, grade in rows}


@pytest.mark.parametrize(("policy", "kept"), [("first", 1.0), ("last", 3.0)])
def test_on_duplicate_first_or_last_keeps_that_grade(
    studio: Studio, write: Write, loaded: dict[str, Any], db: Path, policy: str, kept: float
) -> None:
    path = write("dup.txt", "q1 0 d1 1\nq1 0 d2 0\nq1 0 d1 2\nq1 0 d1 3\n")
    assert studio("import", "qrels", path).exit_code == 2
    result = studio("import", "qrels", path, "--on-duplicate", policy)
    assert result.exit_code == 0, result.output
    assert "repeated pair" in result.stderr
    assert grades(db, "dup") == {("q1", "d1"): kept, ("q1", "d2"): 0.0}


def split_rows(text: str) -> set[tuple[str, ...]]:
    return {tuple(line.split()) for line in text.splitlines() if line.strip()}


VARIANTS: dict[str, Callable[[str], bytes]] = {
    "crlf": lambda text: text.replace("\n", "\r\n").encode(),
    "bom": lambda text: b"\xef\xbb\xbf" + text.encode(),
    "gzip": lambda text: gzip.compress(text.encode()),
    "gzip-bom-crlf": lambda text: gzip.compress(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode()),
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_runs_with_crlf_bom_or_gzip_are_accepted(studio: Studio, write: Write, db: Path, variant: str) -> None:
    suffix = ".txt.gz" if variant.startswith("gzip") else ".txt"
    result = studio("import", "run", write("run" + suffix, VARIANTS[variant](GOOD_RUN)))
    assert result.exit_code == 0, result.output
    with Project.open(db) as project:
        assert [run["name"] for run in project.runs()] == ["new"]
        rows = project.db.cursor().execute("SELECT qid, docid, rank, score FROM run_rows").fetchall()
    expected = {(q, d, int(rank), float(score)) for q, _, d, rank, score, _ in split_rows(GOOD_RUN)}
    assert set(rows) == expected and len(rows) == len(expected)


@pytest.mark.parametrize("variant", VARIANTS)
def test_qrels_with_crlf_bom_or_gzip_are_accepted(studio: Studio, write: Write, db: Path, variant: str) -> None:
    suffix = ".txt.gz" if variant.startswith("gzip") else ".txt"
    result = studio("import", "qrels", write("qrels.x" + suffix, VARIANTS[variant](GOOD_QRELS)))
    assert result.exit_code == 0, result.output
    expected = {(q, d): float(g) for q, _, d, g in split_rows(GOOD_QRELS)}
    assert grades(db, "qrels.x") == expected


def test_run_names_default_to_the_tag_column(studio: Studio, write: Write, listings: Listings) -> None:
    result = studio(
        "import",
        "run",
        write("some-file.txt", GOOD_RUN.replace("new", "bm25_k1")),
        write("other.run.gz", gzip.compress(GOOD_RUN.replace("new", "splade").encode())),
    )
    assert result.exit_code == 0, result.output
    assert [run["name"] for run in listings()["runs"]] == ["bm25_k1", "splade"]


def test_name_option_overrides_the_tag(studio: Studio, write: Write, listings: Listings) -> None:
    result = studio("import", "run", write("some-file.txt", GOOD_RUN), "--name", "mine")
    assert result.exit_code == 0, result.output
    assert [run["name"] for run in listings()["runs"]] == ["mine"]
