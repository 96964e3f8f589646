"""A nuggetizer run audited here and handed back: its `create` output as a bank, its `assign`
output (answers and retrieval modes) as item grades, the nuggets edited, and the edited bank
written in the `create` layout nuggetizer's `assign` reads. Layouts as castorini/nuggetizer's
input/output examples show them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import cli

from studio.domain.models import rubric_item_id
from studio.services.project import Project

CREATE: list[dict[str, Any]] = [
    {
        "query": "What is Python?",
        "qid": "q1",
        "nuggets": [
            {"text": "Python is a high-level programming language", "importance": "vital"},
            {"text": "Python was created by Guido van Rossum", "importance": "vital"},
            {"text": "Python is used for data science", "importance": "okay"},
        ],
        "trace": {"prompt": "...", "response": "...", "input_token_count": 245, "output_token_count": 89},
    },
    {
        "query": "Who wrote Hamlet?",
        "qid": "q2",
        "nuggets": [{"text": "Shakespeare wrote Hamlet", "importance": "vital"}],
    },
]


def nuggets(qid: str, *assignments: str) -> list[dict[str, Any]]:
    (record,) = [r for r in CREATE if r["qid"] == qid]
    return [{**n, "assignment": a} for n, a in zip(record["nuggets"], assignments, strict=True)]


# `assign` output: an answer (answers mode) and a retrieved passage (retrieval mode).
ASSIGN: list[dict[str, Any]] = [
    {
        "query": "What is Python?",
        "qid": "q1",
        "answer_text": "Python is a high-level programming language...",
        "response_length": 42,
        "run_id": "run-123",
        "nuggets": nuggets("q1", "support", "not_support", "partial_support"),
    },
    {
        "text": "Who wrote Hamlet?",
        "qid": "q2",
        "candidate_text": "Hamlet is a tragedy by William Shakespeare.",
        "docid": "msmarco_v2.1_doc_00_0#3_1234",
        "nuggets": nuggets("q2", "support"),
    },
]


def jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def ok(db: Path, *args: object) -> str:
    result = cli(db, *args)
    assert result.exit_code == 0, result.output
    return result.stdout


def item_grades(db: Path, label_set: str) -> dict[tuple[str, str, str], float | None]:
    """(qid, docid, nugget text) -> grade, through the export nuggetizer reads."""
    out = db.parent / f"{label_set}.jsonl"
    ok(db, "export", "graded", label_set, "--out", out)
    found = {}
    for line in out.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for nugget in record["nuggets"]:
            grade = {"support": 1.0, "partial_support": 0.5, "not_support": 0.0}.get(nugget["assignment"])
            found[(record["qid"], record["docid"], nugget["text"])] = grade
    return found


def test_a_nuggetizer_run_is_audited_and_its_edited_nuggets_handed_back(tmp_path: Path) -> None:
    db = tmp_path / "p.duckdb"
    ok(db, "import", "bank", jsonl(tmp_path / "create.jsonl", CREATE), "--name", "nuggets")
    ok(db, "import", "graded", jsonl(tmp_path / "assign.jsonl", ASSIGN), "--name", "assigned", "--bank", "nuggets")
    texts = [n["text"] for r in CREATE for n in r["nuggets"]]
    assert item_grades(db, "assigned") == {
        ("q1", "answer/run-123", texts[0]): 1.0,
        ("q1", "answer/run-123", texts[1]): 0.0,
        ("q1", "answer/run-123", texts[2]): 0.5,
        ("q2", "msmarco_v2.1_doc_00_0#3_1234", texts[3]): 1.0,
    }

    with Project.open(db) as project:
        editor = project.bank_editor("nuggets", person="auditor")
        editor.edit(rubric_item_id("q1", texts[1]), text="Python was created by Guido van Rossum in 1991")
        editor.weight(rubric_item_id("q1", texts[2]), "vital")
        editor.delete(rubric_item_id("q2", texts[3]))
        editor.add("q2", "Hamlet was written around 1600", importance="okay")

    handed_back = tmp_path / "edited.jsonl"
    ok(db, "export", "bank", "nuggets", "--as", "nuggetizer", "--out", handed_back)
    records = [json.loads(line) for line in handed_back.read_text(encoding="utf-8").splitlines()]
    assert records == [
        {
            "qid": "q1",
            "query": "What is Python?",
            "nuggets": [
                {"text": texts[0], "importance": "vital"},
                {"text": "Python was created by Guido van Rossum in 1991", "importance": "vital"},
                {"text": texts[2], "importance": "vital"},
            ],
        },
        {
            "qid": "q2",
            "query": "Who wrote Hamlet?",
            "nuggets": [{"text": "Hamlet was written around 1600", "importance": "okay"}],
        },
    ]

    # Read back, the file is the edited bank item for item.
    ok(db, "import", "bank", handed_back, "--name", "back")
    with Project.open(db) as project:
        current = [(i["qid"], i["text"], i["importance"]) for i in project.bank_editor("nuggets").items()]
        back = [(i["qid"], i["text"], i["importance"]) for i in project.bank_editor("back").items()]
    assert back == current
