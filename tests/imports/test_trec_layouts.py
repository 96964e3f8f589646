"""`studio import run|qrels` on TREC files in the layouts they are published in (trec_layouts/README.md
says which layout each fixture copies): tabs, runs of spaces, trailing spaces, CRLF, gzip, fields after
the sixth and `#` comment lines all load the same rows, through DuckDB's fast path; the refusals exit 2
naming the file and line and leave the project as it was."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import Studio

from studio.services.project import Project
from studio.store import labels as label_store
from studio.store import runs as run_store
from studio.store.database import Database

LAYOUTS = Path(__file__).parent / "trec_layouts"
Listings = Callable[[], dict[str, Any]]
Write = Callable[[str, str | bytes], Path]

RUNS = [
    "dl-passage.tab.run",
    "dl-passage.tab.run.gz",
    "dl-passage.crlf-trailing.run",
    "dl-passage.padded-junk.run",
    "dl-passage.comments.run",
]
ROWS = {
    ("1037798", "1085628", 1, 13.27),
    ("1037798", "1308037", 2, 12.95),
    ("1037798", "1639088", 3, 12.95),
    ("1037798", "1720808", 4, 11.08),
    ("104861", "1017092", 1, 15.31),
    ("104861", "1046334", 2, 14.02),
    ("104861", "1017088", 3, 13.7),
    ("104861", "1058521", 4, 9.5),
}
QRELS = {
    ("1037798", "1085628"): 0.0,
    ("1037798", "1308037"): 0.0,
    ("104861", "1017092"): 2.0,
    ("104861", "1046334"): 2.0,
    ("104861", "10#17088"): 1.0,
}
REFUSED = {
    "five columns": ("run", "refuse-five-columns.run", 3, "expected at least 6 columns"),
    "rank not an integer": ("run", "refuse-rank-not-integer.run", 2, "rank '2.0' is not an integer"),
    "NaN score": ("run", "refuse-nan-score.run", 6, "score 'nan' is not a finite number"),
    "docid twice in a topic": (
        "run",
        "refuse-docid-twice.run",
        7,
        "docid '1017092' is ranked twice for topic '104861'",
    ),
    "five columns in qrels": ("qrels", "refuse-five-columns.qrels", 2, "expected 4 columns"),
}


def run_rows(db: Path) -> list[tuple[str, str, int, float]]:
    with Project.open(db) as project:
        return project.db.cursor().execute("SELECT qid, docid, rank, score FROM run_rows").fetchall()


@pytest.mark.parametrize("name", RUNS)
def test_a_published_run_layout_loads_its_rows_named_after_its_tag(
    studio: Studio, db: Path, listings: Listings, name: str
) -> None:
    result = studio("import", "run", LAYOUTS / name)
    assert result.exit_code == 0, result.output
    assert [(run["name"], run["rows"]) for run in listings()["runs"]] == [("bm25", 8)]
    rows = run_rows(db)
    assert set(rows) == ROWS and len(rows) == len(ROWS)


def test_every_published_run_layout_takes_the_fast_path_in_one_pass() -> None:
    database = Database(":memory:")
    con = database.connection
    run_store.create_run_staging(con)
    run_store.stage_run_files(con, [(index, LAYOUTS / name) for index, name in enumerate(RUNS)])  # no refusal
    staged = con.execute("SELECT file_index, qid, docid, rank, score FROM staged_run_rows").fetchall()
    database.close()
    for index, _ in enumerate(RUNS):
        assert sorted(row[1:] for row in staged if row[0] == index) == sorted(ROWS)


def test_qrels_with_comment_lines_load_through_the_fast_path(studio: Studio, db: Path) -> None:
    database = Database(":memory:")
    label_store.create_label_staging(database.connection)
    label_store.stage_qrels_file(database.connection, 0, LAYOUTS / "dl-passage.comments.qrels")  # no refusal
    database.close()
    result = studio("import", "qrels", LAYOUTS / "dl-passage.comments.qrels", "--name", "dl19")
    assert result.exit_code == 0, result.output
    with Project.open(db) as project:
        labels = (
            project.db.cursor()
            .execute("SELECT qid, docid, grade FROM labels JOIN label_sets USING (label_set_id) WHERE name = 'dl19'")
            .fetchall()
        )
    assert {(qid, docid): grade for qid, docid, grade in labels} == QRELS and len(labels) == len(QRELS)


@pytest.mark.parametrize(("command", "name", "line", "reason"), REFUSED.values(), ids=REFUSED)
def test_a_refused_published_file_names_file_and_line_and_changes_nothing(
    studio: Studio,
    loaded: dict[str, Any],
    listings: Listings,
    command: str,
    name: str,
    line: int,
    reason: str,
) -> None:
    path = LAYOUTS / name
    result = studio("import", command, path)
    assert result.exit_code == 2, result.output
    assert f"{path}:{line}: " in result.stderr
    assert reason in result.stderr
    assert listings() == loaded


def test_a_refused_file_among_good_tab_separated_runs_loads_none_of_them(
    studio: Studio, loaded: dict[str, Any], listings: Listings, write: Write
) -> None:
    good = write("good.run", (LAYOUTS / "dl-passage.tab.run").read_text().replace("bm25", "good"))
    bad = LAYOUTS / "refuse-nan-score.run"
    result = studio("import", "run", good, bad)
    assert result.exit_code == 2, result.output
    assert f"{bad}:6: " in result.stderr
    assert listings() == loaded


@pytest.mark.parametrize("command", ["run", "qrels"])
def test_a_file_of_nothing_but_comments_is_refused_as_empty(
    studio: Studio, write: Write, loaded: dict[str, Any], listings: Listings, command: str
) -> None:
    path = write("comments.txt", "# qid Q0 docid rank score tag\r\n\r\n  # nothing else\r\n")
    result = studio("import", command, path)
    assert result.exit_code == 2, result.output
    assert f"{path}: the file is empty (nothing but comments)" in result.stderr
    assert listings() == loaded
