"""Subtopics (faceted TREC style): generated per query, graded Yes/No per subtopic, and a
document's score = the fraction of its topic's subtopics it satisfies."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes import ScriptedBackend, prompt_of
from helpers import judge_all

from studio import Project
from studio.banks.derived import exam_binary
from studio.domain.choices import BankFormat
from studio.domain.judging import JudgeConfig
from studio.domain.models import BankItem
from studio.formats.bank_writers import losses, render_bank
from studio.formats.banks import parse_bank
from studio.judges.backend import ChatRequest
from studio.judges.methods import get_method
from studio.judges.prompts import load_prompt
from studio.services.rubric.editing import BankEditor
from studio.services.rubric.generation import generate_bank
from studio.store import judging as judge_store


def write_facets(request: ChatRequest) -> str:
    """Writes three subtopics per query; judges 'Yes' when the passage contains the subtopic's
    first word, so the expected scores can be computed from the texts."""
    if request.unit == "generate":
        qid = request.subject[0]
        return json.dumps({"subtopics": [f"the {w} of {qid}" for w in ("cost", "speed", "the")]})
    text = prompt_of(request)
    subtopic = text.split("Subtopic: ")[1].split("\n")[0]
    passage = text.split("Passage: ")[1]
    return "Yes" if subtopic.split()[1] in passage.lower() else "No"


@pytest.fixture()
def project(sample: Path) -> Iterator[Project]:
    with Project.sample(sample) as opened:  # a copy of the sample built once per test process
        yield opened


def test_the_subtopic_prompts_name_their_placeholders() -> None:
    assert {"query"} == load_prompt("generate-subtopics").placeholders()
    assert '"subtopics"' in load_prompt("generate-subtopics").user
    method = get_method("subtopic")
    assert method.prompt.placeholders() == {"query", "subtopic", "passage"}
    assert method.labels == ("Yes", "No") and method.item_kind == "subtopic"


def test_subtopics_are_generated_then_graded_into_the_fraction_satisfied(project: Project) -> None:
    writer = ScriptedBackend(write_facets, name="facets", model="facets")
    config = JudgeConfig(method="generate", backend="facets", name="facets", topics=["1001", "1004"])
    summary = list(generate_bank(project.db, config, "subtopic", backend=writer))[-1]
    assert isinstance(summary, dict) and summary["items"] == 6 and summary["kind"] == "subtopic"
    items = BankEditor(project.db, "facets").items()
    assert {i["kind"] for i in items} == {"subtopic"} and len(items) == 6

    done = judge_all(
        project.db,
        JudgeConfig(method="subtopic", backend="facets", name="sub", bank="facets", topics=["1001", "1004"]),
        writer,
    )
    assert done.failures == 0
    graded = judge_store.item_grades(project.db.cursor(), done.judge_run)
    assert {g for docs in graded.values() for per in docs.values() for g in per.values()} <= {0.0, 1.0}
    bank = [BankItem(i["qid"], i["item_id"], i["kind"], i["text"]) for i in items]
    want = exam_binary(graded, bank, 1)
    labels = dict(
        ((q, d), g)
        for q, d, g in project.db.cursor()
        .execute("SELECT qid, docid, grade FROM labels JOIN label_sets USING (label_set_id) WHERE name = 'sub'")
        .fetchall()
    )
    assert labels == {(q, d): s for q, docs in want.items() for d, s in docs.items()}
    assert any(0 < s < 1 for s in labels.values())  # some documents satisfy some subtopics, not all
    # The rendered prompt carries the query, the subtopic and the passage.
    judged = next(r for r in writer.requests if r.unit == "item").messages[-1][1]
    assert "Query: " in judged and "Subtopic: the cost of" in judged


def test_subtopic_banks_round_trip_through_rubric_jsonl() -> None:
    items = [BankItem("7", "7/a", "subtopic", "price"), BankItem("7", "7/b", "subtopic", "history")]
    text = render_bank(items, BankFormat.rubric)
    assert '"subtopic_text": "price"' in text
    assert parse_bank(text, "bank.jsonl") == items
    assert (
        losses(items, BankFormat.nuggetizer)[-1] == "subtopics are written as nuggets (nuggetizer holds nuggets only)"
    )
    assert losses(items, BankFormat.tsv)[-1] == "TSV does not say the kind: re-import with --kind subtopic"
