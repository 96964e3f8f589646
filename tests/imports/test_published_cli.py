"""`studio import bank|docs` on files as they are published (tests/published/README.md says which
layout each fixture copies): the Rubric workbench's older question banks, and passage files with
one line per judging topic. Refusals exit 2 naming the lines and leave the project as it was."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import Studio

from studio.services.project import Project

Write = Callable[[str, str | bytes], Path]
Listings = Callable[[], dict[str, Any]]

PUBLISHED = Path(__file__).resolve().parents[1] / "published"
EXAM = PUBLISHED / "dl20-exam-questions.jsonl.gz"
PASSAGES = PUBLISHED / "dl20-passages.tsv"
CONFLICT = PUBLISHED / "dl20-passages-conflict.tsv"
TOPIC_TEXTS = {
    "1037496": "who is rep scalise?",
    "1030303": "who is aziz hashim",
    "1043135": "who killed nicholas ii of russia",
}


def ok(result: Any) -> Any:
    assert result.exit_code == 0, result.output
    return result


def state(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Everything an import writes, read back from the project file."""
    with Project.open(db) as project:
        con = project.db.cursor()
        return {
            table: con.execute(f"SELECT * EXCLUDE (created_at) FROM {table} ORDER BY ALL").fetchall()
            if table in ("banks", "bank_events", "batches")
            else con.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall()
            for table in ("topics", "documents", "banks", "bank_events", "batches")
        }


def older_line(qid: str, *questions: tuple[str, str]) -> str:
    """A line of the older question-bank layout; questions as (their query_id, text)."""
    return (
        json.dumps(
            {
                "query_id": qid,
                "facet_id": None,
                "test_collection": "dl20",
                "query_text": "x",
                "info": None,
                "questions": [
                    {
                        "question_id": f"{qid}/{n}",
                        "question_text": text,
                        "query_id": own,
                        "facet_id": None,
                        "info": None,
                    }
                    for n, (own, text) in enumerate(questions)
                ],
            }
        )
        + "\n"
    )


# -- banks ---------------------------------------------------------------------------------------


def test_a_published_older_question_bank_loads_with_its_topics(studio: Studio) -> None:
    result = ok(studio("import", "bank", EXAM, "--name", "exam", "--format", "json"))
    report = json.loads(result.stdout)
    assert report["counts"] == {"topics": 3, "items": 10, "questions": 10, "nuggets": 0, "topics_added": 3}
    assert report["warnings"] == []
    banks = json.loads(ok(studio("list", "banks", "--format", "json")).stdout)
    assert [(b["name"], b["topics"], b["items"]) for b in banks] == [("exam", 3, 10)]
    topics = json.loads(ok(studio("list", "topics", "--format", "json")).stdout)
    assert {t["qid"]: t["text"] for t in topics} == TOPIC_TEXTS


def test_the_projects_topic_texts_are_kept(studio: Studio, write: Write, db: Path) -> None:
    ok(studio("import", "topics", write("topics.tsv", "1030303\tWho is Aziz Hashim?\n1037496\twho is rep scalise?\n")))
    result = ok(studio("import", "bank", EXAM, "--name", "exam"))
    assert "imported bank as exam: 3 topics, 10 items, 10 questions, 0 nuggets, 1 topics_added" in result.stdout
    assert (
        "warning: 1 topic(s) have another text in the project than in the bank's file (1030303): the"
        " project's text is kept, and an export writes it"
    ) in result.stderr.replace("\n", " ")
    assert dict(state(db)["topics"]) == {**TOPIC_TEXTS, "1030303": "Who is Aziz Hashim?"}


@pytest.mark.parametrize(
    ("content", "line", "reason"),
    [
        (
            older_line("q1", ("q1", "A?")) + older_line("q2", ("q2", "B?"), ("q3", "C?")),
            2,
            "question 2 ('q2/1') has query_id 'q3', but its line's query_id is 'q2'",
        ),
        (
            older_line("q1", ("q1", "A?")) + json.dumps({"qid": "q2", "nuggets": ["B"]}) + "\n",
            2,
            "this line is a nuggetizer record ('nuggets'), but line 1 is an older Rubric question bank",
        ),
    ],
    ids=["question of another query", "mixed layouts"],
)
def test_a_bad_older_bank_is_refused_and_changes_nothing(
    studio: Studio,
    write: Write,
    db: Path,
    loaded: dict[str, Any],
    listings: Listings,
    content: str,
    line: int,
    reason: str,
) -> None:
    before = state(db)
    path = write("bank.jsonl.gz", gzip.compress(content.encode()))
    result = studio("import", "bank", path, "--name", "exam")
    assert result.exit_code == 2, result.output
    assert f"{path}:{line}: {reason}" in result.stderr.replace("\n", " ")
    assert state(db) == before and listings() == loaded


# -- documents -----------------------------------------------------------------------------------


@pytest.mark.parametrize("file", ["dl20-passages.tsv", "dl20-passages.jsonl"])
def test_a_passage_file_repeating_passages_per_topic_loads_each_once(studio: Studio, db: Path, file: str) -> None:
    path = PUBLISHED / file
    result = ok(studio("import", "docs", path, "--format", "json"))
    report = json.loads(result.stdout)
    assert report["counts"] == {"documents": 5, "repeated": 3}
    assert report["warnings"] == [
        f"3 repeated document line(s) with the same text were loaded once (the first: '1002518' at {path}:1 and"
        f" {path}:5)"
    ]
    assert "warning: 3 repeated document line(s)" in result.stderr
    docs = json.loads(ok(studio("list", "docs", "--format", "json")).stdout)
    assert [d["docid"] for d in docs] == ["1002518", "1014972", "1031737", "7067032", "8812345"]


def test_the_table_summary_counts_the_repeats(studio: Studio) -> None:
    result = ok(studio("import", "docs", PASSAGES))
    assert result.stdout == "imported documents: 5 documents, 3 repeated\n"


def test_a_repeat_with_another_text_is_refused_naming_both_lines(
    studio: Studio, db: Path, loaded: dict[str, Any], listings: Listings
) -> None:
    before = state(db)
    result = studio("import", "docs", CONFLICT)
    assert result.exit_code == 2, result.output
    assert (
        f"{CONFLICT}:6: document '1014972' is listed again with a different text (first at {CONFLICT}:2);"
        " choose with --on-duplicate first|last"
    ) in result.stderr.replace("\n", " ")
    assert state(db) == before and listings() == loaded


def test_a_conflict_across_files_is_refused_naming_both_files(
    studio: Studio, write: Write, db: Path, loaded: dict[str, Any]
) -> None:
    before = state(db)
    other = write("more.tsv", "9999999\tnew passage\n1031737\tPraiseworthy, but rewritten.\n")
    result = studio("import", "docs", PASSAGES, other)
    assert result.exit_code == 2, result.output
    assert (
        f"{other}:2: document '1031737' is listed again with a different text (first at {PASSAGES}:3)"
        in result.stderr.replace("\n", " ")
    )
    assert state(db) == before


def test_identical_repeats_across_files_are_loaded_once(studio: Studio, write: Write) -> None:
    again = write("again.tsv", (PASSAGES.read_text().splitlines()[0]) + "\nd-new\tanother\n")
    report = json.loads(ok(studio("import", "docs", PASSAGES, again, "--format", "json")).stdout)
    assert report["counts"] == {"documents": 6, "repeated": 4}


@pytest.mark.parametrize(("policy", "kept"), [("first", "some theories"), ("last", "one theory")])
def test_on_duplicate_keeps_the_first_or_the_last(studio: Studio, db: Path, policy: str, kept: str) -> None:
    result = ok(studio("import", "docs", CONFLICT, "--on-duplicate", policy, "--format", "json"))
    report = json.loads(result.stdout)
    assert report["counts"] == {"documents": 5, "repeated": 2, "conflicting": 1}
    assert report["warnings"][-1] == f"1 document line(s) repeat a docid with a different text: kept the {policy}"
    texts = dict((docid, text) for docid, _, text in state(db)["documents"])
    assert kept in texts["1014972"] and len(texts) == 5


def test_the_python_api_takes_on_duplicate(tmp_path: Path) -> None:
    with Project.open(tmp_path / "p.duckdb") as project:
        with pytest.raises(ValueError, match="different text"):
            project.import_docs(CONFLICT)
        assert project.documents() == []
        report = project.import_docs(CONFLICT, on_duplicate="last")
        assert report.counts == {"documents": 5, "repeated": 2, "conflicting": 1}
