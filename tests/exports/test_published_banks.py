"""A bank is exported in the layout it was imported in: the Rubric workbench's older question-bank
layout (tests/published/dl20-exam-questions.jsonl.gz, described in tests/published/README.md)
comes back byte for byte after gzip decompression, and edited banks keep the layout."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from helpers import Studio, cli
from typer.testing import Result

from studio import Project
from studio.domain.models import BankItem
from studio.formats.banks import read_bank
from studio.store import banks as bank_store

PUBLISHED = Path(__file__).resolve().parents[1] / "published"
EXAM = PUBLISHED / "dl20-exam-questions.jsonl.gz"
ORIGINAL = gzip.decompress(EXAM.read_bytes()).decode("utf-8")


@pytest.fixture
def studio(tmp_path: Path) -> Studio:
    """`studio --db tmp/p.duckdb ARGS…`, asserting success."""

    def invoke(*args: object) -> Result:
        result = cli(tmp_path / "p.duckdb", *args)
        assert result.exit_code == 0, result.output
        return result

    return invoke


def exported(studio: Studio, out: Path, *options: str) -> str:
    studio("export", "bank", "exam", "--out", out, *options)
    data = out.read_bytes()
    return (gzip.decompress(data) if out.name.endswith(".gz") else data).decode("utf-8")


def current(db: Path) -> list[BankItem]:
    with Project.open(db) as project:
        bank = bank_store.bank_id(project.db.cursor(), "exam")
        assert bank is not None
        return bank_store.current_items(project.db.cursor(), bank)


@pytest.mark.parametrize("out", ["exam.jsonl.gz", "exam.jsonl", "exam.json"])
def test_the_older_layout_round_trips_byte_for_byte(studio: Studio, tmp_path: Path, out: str) -> None:
    studio("import", "bank", EXAM, "--name", "exam")
    result = studio("export", "bank", "exam", "--out", tmp_path / out)
    assert "exported bank exam as rubric-questions" in result.stderr
    assert exported(studio, tmp_path / out) == ORIGINAL
    assert studio("export", "bank", "exam", "--out", "-").stdout == ORIGINAL


def test_topics_loaded_before_with_the_same_texts_change_nothing(studio: Studio, tmp_path: Path) -> None:
    topics = tmp_path / "topics.tsv"
    topics.write_text(
        "1030303\twho is aziz hashim\n1037496\twho is rep scalise?\n"
        "1043135\twho killed nicholas ii of russia\n1045109\twho owns barnhart crane\n"
    )
    studio("import", "topics", topics)
    studio("import", "bank", EXAM, "--name", "exam")
    assert exported(studio, tmp_path / "exam.jsonl.gz") == ORIGINAL


def records(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def test_edits_are_exported_in_the_older_layout(studio: Studio, tmp_path: Path) -> None:
    studio("import", "bank", EXAM, "--name", "exam")
    before = current(tmp_path / "p.duckdb")
    edited, deleted = before[0], before[5]
    studio("bank", "add", "exam", "1043135", "Which revolutionaries held the Romanovs captive?", "--kind", "question")
    studio("bank", "edit", "exam", edited.item_id, "Which political party does Scalise belong to?")
    studio("bank", "delete", "exam", deleted.item_id)
    studio("bank", "weight", "exam", before[1].item_id, "vital")
    text = exported(studio, tmp_path / "edited.jsonl.gz")
    lines = records(text)
    assert [line["query_id"] for line in lines] == ["1037496", "1030303", "1043135"]  # the file's order
    assert all(
        list(line) == ["query_id", "facet_id", "test_collection", "query_text", "info", "questions"] for line in lines
    )
    assert all(line["test_collection"] == "dl20" for line in lines)
    questions = {q["question_id"]: q for line in lines for q in line["questions"]}
    assert questions[edited.item_id]["question_text"] == "Which political party does Scalise belong to?"
    assert deleted.item_id not in questions
    assert questions[before[1].item_id]["info"] == {"importance": "vital"}
    assert lines[2]["questions"][-1]["question_text"] == "Which revolutionaries held the Romanovs captive?"
    assert all(list(q) == ["question_id", "question_text", "query_id", "facet_id", "info"] for q in questions.values())
    # What the file holds is the bank as it stands.
    parsed = read_bank(text, "edited.jsonl")
    assert sorted(parsed.items, key=lambda i: i.item_id) == sorted(
        current(tmp_path / "p.duckdb"), key=lambda i: i.item_id
    )


def test_an_explicit_format_or_a_tsv_name_still_wins(studio: Studio, tmp_path: Path) -> None:
    studio("import", "bank", EXAM, "--name", "exam")
    rubric = records(exported(studio, tmp_path / "r.jsonl", "--as", "rubric"))
    assert all("items" in line and "questions" not in line for line in rubric)
    assert rubric[0]["test_collection"] == "dl20"
    tsv = exported(studio, tmp_path / "q.tsv")
    assert tsv.splitlines()[0] == "1037496_1\tWhich political party does Steve Scalise belong to?"


def test_other_banks_export_in_their_own_layout(studio: Studio, tmp_path: Path) -> None:
    nuggetizer = tmp_path / "nuggets.jsonl"
    nuggetizer.write_text(
        json.dumps({"qid": "q1", "query": "x", "nuggets": [{"text": "A", "importance": "vital"}]}) + "\n"
    )
    studio("import", "bank", nuggetizer, "--name", "exam")
    assert exported(studio, tmp_path / "n.jsonl") == nuggetizer.read_text()
    # Re-imported from the older layout, the bank takes that layout.
    studio("import", "bank", EXAM, "--name", "exam", "--replace")
    assert exported(studio, tmp_path / "again.jsonl.gz") == ORIGINAL
    # From TSV (no JSON layout) and from files of two layouts: Rubric JSONL, the default.
    tsv = tmp_path / "b.tsv"
    tsv.write_text("q1_1\tA\n")
    studio("import", "bank", tsv, "--name", "exam", "--replace")
    assert "items" in records(exported(studio, tmp_path / "t.jsonl"))[0]
    studio("import", "bank", EXAM, nuggetizer, "--name", "exam", "--replace")
    assert "items" in records(exported(studio, tmp_path / "m.jsonl"))[0]


def test_a_bank_made_in_the_studio_exports_rubric_named_after_it(studio: Studio, tmp_path: Path) -> None:
    with Project.open(tmp_path / "p.duckdb") as project, project.db.transaction() as tx:
        bank_store.create_bank(tx, "exam", None)  # as `studio bank generate` and `nuggetize` make theirs
    studio("bank", "add", "exam", "q1", "What is X?", "--kind", "question")
    (line,) = records(exported(studio, tmp_path / "g.jsonl"))
    assert "items" in line and line["test_collection"] == "exam"
