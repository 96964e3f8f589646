"""Test-bank edits: each an audited event; the current items follow; nothing is lost."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers import cli

from studio import Project
from studio.domain.errors import UsageError
from studio.services.rubric.editing import BankEditor


@pytest.fixture()
def project(sample: Path) -> Iterator[Project]:
    with Project.sample(sample) as opened:  # a copy of the sample built once per test process
        yield opened


def md5_id(qid: str, text: str) -> str:
    return f"{qid}/{hashlib.md5(text.encode()).hexdigest()}"


def events(project: Project, bank: str = "nuggets") -> list[tuple[str, str, str | None, str | None]]:
    return (
        project.db.cursor()
        .execute(
            "SELECT e.op, e.item_id, e.source, e.note FROM bank_events e JOIN banks b USING (bank_id)"
            " WHERE b.name = ? AND e.origin = 'person' ORDER BY e.event_id",
            [bank],
        )
        .fetchall()
    )


def test_add_gives_the_rubric_id_and_records_who_and_why(project: Project) -> None:
    editor = BankEditor(project.db, "nuggets", person="ana")
    before = len(editor.items("1001"))
    item = editor.add("1001", "  Water boils near 70 C on Everest ", importance="okay", note="missing")
    assert item.item_id == md5_id("1001", "Water boils near 70 C on Everest")
    assert len(editor.items("1001")) == before + 1
    assert events(project) == [("add", item.item_id, "ana", "missing")]
    with pytest.raises(UsageError):
        editor.add("1001", "Water boils near 70 C on Everest")  # the same item twice


def test_edit_and_weight_keep_the_id_and_the_history(project: Project) -> None:
    editor = BankEditor(project.db, "nuggets", person="bo")
    first = editor.items("1002")[0]
    editor.edit(first["item_id"], text="Rest the ankle for two days")
    editor.weight(first["item_id"], "okay" if first["importance"] == "vital" else "vital")
    now = next(i for i in editor.items("1002") if i["item_id"] == first["item_id"])
    assert now["text"] == "Rest the ankle for two days" and now["importance"] != first["importance"]
    assert [op for op, *_ in events(project)] == ["edit", "weight"]
    imported = (
        project.db.cursor()
        .execute("SELECT text FROM bank_events WHERE item_id = ? AND origin = 'import'", [first["item_id"]])
        .fetchone()
    )
    assert imported == (first["text"],)  # the imported wording is still there


def test_delete_merge_and_split_change_the_current_items_only(project: Project) -> None:
    editor = BankEditor(project.db, "nuggets")
    a, b, c = (i["item_id"] for i in editor.items("1004")[:3])
    importance = {i["item_id"]: i["importance"] for i in editor.items("1004")}
    count = len(editor.items("1004"))
    merged = editor.merge([a, b], text="Tim Berners-Lee proposed the web in 1989 at CERN")
    assert merged.importance == ("vital" if "vital" in (importance[a], importance[b]) else importance[a])
    ids = {i["item_id"] for i in editor.items("1004")}
    assert merged.item_id in ids and a not in ids and b not in ids and len(ids) == count - 1
    parts = editor.split(c, ["First part", "Second part"])
    ids = {i["item_id"] for i in editor.items("1004")}
    assert c not in ids and {p.item_id for p in parts} <= ids and len(ids) == count
    editor.delete(parts[0].item_id, note="too vague")
    assert len(editor.items("1004")) == count - 1
    assert len(editor.history(100)) >= 7  # every step is an event


@pytest.mark.parametrize(
    "call",
    [
        lambda e: e.merge(["only-one"]),
        lambda e: e.weight(e.items("1001")[0]["item_id"], "important"),
        lambda e: e.edit("1001/nope", text="x"),
        lambda e: e.split(e.items("1001")[0]["item_id"], ["one"]),
        lambda e: e.add("1001", "   "),
        lambda e: e.merge([e.items("1001")[0]["item_id"], e.items("1002")[0]["item_id"]]),
    ],
)
def test_bad_edits_are_refused_and_change_nothing(project: Project, call: Callable[[BankEditor], object]) -> None:
    editor = BankEditor(project.db, "nuggets")
    before = editor.items()
    with pytest.raises(UsageError):
        call(editor)
    assert editor.items() == before and events(project) == []


def test_cli_edits_show_in_list_and_history(sample: Path) -> None:
    db = sample  # a copy of the sample project, built once per test process

    def studio(*args: str) -> str:
        result = cli(db, *args)
        assert result.exit_code == 0, result.output
        return result.stdout

    added = json.loads(
        studio(
            "bank",
            "add",
            "questions",
            "1005",
            "What makes sourdough sour?",
            "--kind",
            "question",
            "--person",
            "cy",
            "-f",
            "json",
        )
    )
    listed = json.loads(studio("bank", "list", "questions", "--topic", "1005", "-f", "json"))
    assert added["item_id"] in {i["item_id"] for i in listed}
    history = json.loads(studio("bank", "history", "questions", "--limit", "1", "-f", "json"))
    assert history[0]["op"] == "add" and history[0]["source"] == "cy"
    refused = cli(db, "bank", "delete", "questions", "1005/none")
    assert refused.exit_code == 2 and "no item" in refused.stderr
