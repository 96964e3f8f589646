"""Migration 9 (each bank's file layout and test collection) opens a project file of version 8:
its banks keep their items, have no layout (an export writes the Rubric default, named after the
bank, as before) and take the layout of their next import."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import duckdb

from studio import Project
from studio.services.exports.banks import export_bank
from studio.store import banks as bank_store
from studio.store.migrations import MIGRATIONS

EXAM = Path(__file__).resolve().parents[1] / "published" / "dl20-exam-questions.jsonl.gz"


def version_8_file(path: Path) -> None:
    """A project file as the studio wrote it at schema version 8, holding one bank of two items."""
    with duckdb.connect(str(path)) as con:
        con.execute(
            "CREATE TABLE schema_version (version INTEGER PRIMARY KEY,"
            " applied_at TIMESTAMP NOT NULL DEFAULT current_timestamp)"
        )
        for version, statements in MIGRATIONS:
            if version <= 8:
                con.execute(statements)
                con.execute("INSERT INTO schema_version (version) VALUES (?)", [version])
        con.execute("INSERT INTO batches (batch_id, command, source) VALUES (nextval('batch_ids'), 'import bank', 'x')")
        con.execute("INSERT INTO topics VALUES ('q1', 'what is x')")
        con.execute("INSERT INTO banks (bank_id, name, source) VALUES (nextval('bank_ids'), 'old', 'old.jsonl')")
        for position, (item_id, text) in enumerate([("q1/a", "What is X?"), ("q1/b", "Why X?")]):
            con.execute(
                "INSERT INTO bank_events (event_id, bank_id, item_id, qid, op, kind, text, importance, gold_answers,"
                " position, origin, source, batch_id) VALUES (nextval('bank_event_ids'), 1, ?, 'q1', 'add',"
                " 'question', ?, NULL, [], ?, 'import', 'old.jsonl', 1)",
                [item_id, text, position],
            )


def test_a_version_8_project_migrates_and_keeps_its_banks(tmp_path: Path) -> None:
    path = tmp_path / "v8.duckdb"
    version_8_file(path)
    with Project.open(path) as project:
        assert project.db.schema_version() == MIGRATIONS[-1][0] >= 9
        con = project.db.cursor()
        bank = bank_store.bank_id(con, "old")
        assert bank is not None
        assert bank_store.bank_layout(con, bank) == (None, None)
        assert [item.text for item in bank_store.current_items(con, bank)] == ["What is X?", "Why X?"]
        assert [(b["name"], b["items"]) for b in project.banks()] == [("old", 2)]
        export_bank(project.db, "old", tmp_path / "old.jsonl")
        (line,) = [json.loads(text) for text in (tmp_path / "old.jsonl").read_text().splitlines()]
        assert "items" in line and line["test_collection"] == "old" and line["query_text"] == "what is x"

        project.import_bank(EXAM, name="old", replace=True)
        assert bank_store.bank_layout(con, bank) == ("rubric-questions", "dl20")
        export_bank(project.db, "old", tmp_path / "again.jsonl.gz")
    assert gzip.decompress((tmp_path / "again.jsonl.gz").read_bytes()) == gzip.decompress(EXAM.read_bytes())
