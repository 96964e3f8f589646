"""Generating a bank from the queries: prompts, parsing, the call cache, bank events."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from fakes import ScriptedBackend

from studio import Project
from studio.domain.bank_results import GeneratedBank
from studio.domain.errors import UsageError
from studio.domain.judging import JudgeConfig, JudgeProgress
from studio.judges.backend import ChatRequest
from studio.judges.parsing import parse_generated_items
from studio.judges.prompts import load_prompt
from studio.services.rubric.editing import BankEditor
from studio.services.rubric.generation import generate_bank


@pytest.mark.parametrize(
    "text, items",
    [
        ('{"questions": ["What is X?", "Why Y?"]}', ["What is X?", "Why Y?"]),
        ('Sure!\n```json\n{ "questions" : ["A?", " B? "] }\n```', ["A?", "B?"]),
        ("1. First?\n2) Second?\n- Third?", ["First?", "Second?", "Third?"]),
        ("Question: One?\n\nQuestion: Two?", ["One?", "Two?"]),
        (
            'questions: [\n{ "questions_1" : "Top speed?" },\n{ "question_2": "Habitat?" }\n}',
            ["Top speed?", "Habitat?"],
        ),
        ("", []),
        ("I cannot help with that.", []),
    ],
)
def test_parse_generated_items(text: str, items: list[str]) -> None:
    assert parse_generated_items(text, "questions") == items


def test_generation_prompts_follow_the_published_text() -> None:
    question = load_prompt("generate-questions").user
    assert question.startswith("Break the query '{query}' into concise questions that must be answered.")
    assert question.endswith('```json { "questions" : [question_text_1, question_text_2, ... ] }```')
    nugget = load_prompt("generate-nuggets").user
    assert "into concise nuggets that must be mentioned" in nugget and "maximum of 4 words" in nugget
    assert '"nuggets"' in nugget


def write_questions(request: ChatRequest) -> str:
    """Answers with three questions naming the topic (one twice), or nothing for topic 1002."""
    qid = request.subject[0]
    return "no idea" if qid == "1002" else json.dumps({"questions": [f"{qid} a?", f"{qid} b?", f"{qid} a?"]})


def run(project: Project, backend: ScriptedBackend, *, replace: bool = False) -> GeneratedBank:
    config = JudgeConfig(method="generate", backend="writer", name="gen", topics=["1001", "1002", "1003"])
    *progress, summary = generate_bank(project.db, config, "question", backend=backend, replace=replace)
    assert all(isinstance(event, JudgeProgress) for event in progress)
    assert not isinstance(summary, JudgeProgress)  # what was made comes last
    return summary


def test_generated_items_become_a_bank_with_rubric_ids_and_cached_calls(sample: Path) -> None:
    with Project.sample(sample) as project:
        writer = ScriptedBackend(write_questions, name="writer", model="writer")
        summary = run(project, writer)
        assert summary["items"] == 4 and summary["calls"] == 3 and summary["topics_without_items"] == ["1002"]
        items = BankEditor(project.db, "gen").items()
        assert {i["text"] for i in items} == {"1001 a?", "1001 b?", "1003 a?", "1003 b?"}
        assert all(i["item_id"] == f"{i['qid']}/{hashlib.md5(i['text'].encode()).hexdigest()}" for i in items)
        assert all(i["kind"] == "question" for i in items)
        origins = (
            project.db.cursor()
            .execute(
                "SELECT DISTINCT e.origin, e.source FROM bank_events e JOIN banks b"
                " USING (bank_id) WHERE b.name = 'gen'"
            )
            .fetchall()
        )
        assert origins == [("generate", "writer:writer")]
        with pytest.raises(UsageError):
            run(project, writer)  # the bank exists
        again = run(project, writer, replace=True)
        assert again["calls"] == 0 and again["cache_hits"] == 3 and writer.calls == 3
