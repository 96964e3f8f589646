"""Prompt collections as data: the published `prompts.json` layout read and written, placeholders
checked against the method, a collection round-tripped through the project (as JSON and as
template folders), and label sets linked to the prompt, model and collection that made them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import cli
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from studio import Project
from studio.domain.errors import InputError
from studio.domain.prompt_study import PreferenceRow, StudyPrompt
from studio.formats.prompt_collections import (
    group_of,
    parse_preferences,
    parse_prompts_json,
    write_preferences,
    write_prompts_json,
)
from studio.judges.prompts import load_prompt

TEXT = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="{}"), max_size=30)
IDS = st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{0,8}", fullmatch=True)
PARTICIPANTS = st.one_of(
    st.builds(lambda n: f"human-{n}", st.integers(0, 99)),
    st.builds(lambda n: f"LLM-{n}", st.integers(0, 99)),
    st.from_regex(r"[A-Za-z][a-z]{0,6}", fullmatch=True),
)
PLACEHOLDERS = {
    "binary": "{query} {passage}",
    "graded": "{passage}\n{query}",
    "pairwise": "{query} {passage_a} {passage_b}",
}


@st.composite
def collections(draw: st.DrawFn) -> list[StudyPrompt]:
    prompts = []
    for prompt_id in draw(st.lists(IDS, min_size=1, max_size=5, unique=True)):
        participant = draw(PARTICIPANTS)
        for method in draw(st.lists(st.sampled_from(sorted(PLACEHOLDERS)), min_size=1, max_size=3, unique=True)):
            system = draw(TEXT)
            user = draw(TEXT) + PLACEHOLDERS[method] + draw(TEXT)
            prompts.append(StudyPrompt(prompt_id, participant, group_of(participant, prompt_id), method, system, user))
    return prompts


def in_study_order(prompts: list[StudyPrompt]) -> list[StudyPrompt]:
    """The order the layout keeps: ids as first seen, methods binary, graded, pairwise."""
    ids = list(dict.fromkeys(p.prompt_id for p in prompts))
    order = ["binary", "graded", "pairwise"]
    return sorted(prompts, key=lambda p: (ids.index(p.prompt_id), order.index(p.method)))


@settings(max_examples=examples(60), deadline=None)
@given(collections())
def test_the_layout_round_trips(prompts: list[StudyPrompt]) -> None:
    assert parse_prompts_json(write_prompts_json(prompts), "prompts.json") == in_study_order(prompts)


@given(st.integers(0, 999))
def test_groups_follow_the_authors_names(n: int) -> None:
    assert group_of(f"human-{n}", "p") == "people"
    assert group_of(f"LLM-{n}", "p") == "llm"
    assert group_of("UMBRELA", "p") == "UMBRELA"
    assert group_of(f"human-{n}", "p", {"p": "experts"}) == "experts"


@pytest.mark.parametrize(
    ("method", "user", "reason"),
    [
        ("binary", "Query: {query}", "binary prompt lacks {passage}"),
        ("pairwise", "{query} {passage_a} {passage}", "pairwise prompt lacks {passage_b}"),
        ("graded", "{query} {passage} {passage_a}", "names {passage_a}, which graded does not fill"),
    ],
)
def test_a_prompt_that_does_not_fit_its_method_is_refused_with_its_id(method: str, user: str, reason: str) -> None:
    text = json.dumps(
        {
            "ok": {"participant_name": "human-1", "binary": {"system": "", "user": "{query} {passage}"}},
            "bad-7": {"participant_name": "LLM-2", method: {"system": "s", "user": user}},
        },
        indent=1,
    )
    with pytest.raises(
        InputError,
        match=r"prompts\.json:\d+: prompt 'bad-7' \("
        + method
        + r"\): .*"
        + reason.replace("{", r"\{").replace("}", r"\}"),
    ) as refused:
        parse_prompts_json(text, "prompts.json")
    assert refused.value.line == text.splitlines().index(' "bad-7": {') + 1


@pytest.mark.parametrize(
    "text",
    ["[1, 2]", '{"a": {"participant_name": "x"}}', '{"a": {"binary": {"system": "s"}}}', '{"a": {"binery": {}}}', "{"],
)
def test_malformed_collections_are_refused(text: str) -> None:
    with pytest.raises(InputError, match=r"^prompts\.json:\d+: "):
        parse_prompts_json(text, "prompts.json")


VERDICT_ROWS = st.lists(
    st.builds(
        PreferenceRow,
        IDS,
        st.sampled_from(["3-vs-01", "2-vs-01", "3-vs-2"]),
        IDS,
        IDS,
        st.sampled_from(["agree", "disagree", "tie"]),
    ),
    min_size=1,
    max_size=20,
    unique_by=lambda r: (r.qid, r.doc_a, r.doc_b),  # a pair listed twice is a duplicate (tested apart)
)


@given(VERDICT_ROWS)
def test_verdict_files_round_trip(rows: list[PreferenceRow]) -> None:
    assert parse_preferences(write_preferences(rows), "v.txt") == (rows, [])


def test_preference_files_hold_verdicts_and_raw_answers() -> None:
    verdicts, raw = parse_preferences("1 3-vs-01 d1 d2 agree\n1 d1 d2 1\n1 d2 d1 2\n", "v.txt")
    assert [(v.doc_a, v.verdict) for v in verdicts] == [("d1", "agree")]
    assert raw == [("1", "d1", "d2", 1.0), ("1", "d2", "d1", 2.0)]
    with pytest.raises(InputError, match=r"v\.txt:1: verdict 'maybe'"):
        parse_preferences("1 3-vs-01 d1 d2 maybe\n", "v.txt")


COLLECTION = {
    "human-1": {
        "participant_name": "human-1",
        "binary": {
            "system": "You judge passages.",
            "user": "Is it relevant? Answer 1 or 0.\nQuery: {query}\nPassage: {passage}",
        },
        "pairwise": {"system": "", "user": "Which passage answers {query}? 1 or 2.\n1: {passage_a}\n2: {passage_b}"},
    },
    "LLM-1": {
        "participant_name": "LLM-1",
        "binary": {"system": "Expert assessor.", "user": "Query: {query}\nPassage: {passage}\nRelevant (yes/no)?"},
        "graded": {"system": "Grade 0-3.", "user": "Query: {query}\nPassage: {passage}\nGrade:"},
    },
}


def write_collection(folder: Path) -> Path:
    path = folder / "prompts.json"
    path.write_text(json.dumps(COLLECTION, indent=2), encoding="utf-8")
    return path


def test_a_collection_round_trips_through_the_project_as_json_and_as_folders(tmp_path: Path) -> None:
    db = tmp_path / "p.duckdb"
    assert cli(db, "import", "prompts", write_collection(tmp_path), "--name", "study").exit_code == 0
    assert cli(db, "export", "prompts", "study", "--out", tmp_path / "out.json").exit_code == 0
    assert json.loads((tmp_path / "out.json").read_text(encoding="utf-8")) == COLLECTION
    assert cli(db, "export", "prompts", "study", "--out", tmp_path / "folders", "--folder").exit_code == 0
    assert cli(db, "import", "prompts", tmp_path / "folders", "--name", "again").exit_code == 0
    with Project.open(db) as project:
        assert project.collection_prompts("again") == project.collection_prompts("study")
        assert [p.group for p in project.collection_prompts("study")] == ["people", "people", "llm", "llm"]
    # Each exported folder is a studio template: `studio judge --prompt DIR/ID/METHOD` reads it.
    template = load_prompt(tmp_path / "folders" / "LLM-1" / "graded")
    assert template.system == "Grade 0-3." and template.placeholders() == {"query", "passage"}


def test_a_group_mapping_overrides_the_name_rule(tmp_path: Path) -> None:
    db = tmp_path / "p.duckdb"
    groups = tmp_path / "groups.json"
    groups.write_text('{"LLM-1": "gpt"}', encoding="utf-8")
    assert cli(db, "import", "prompts", write_collection(tmp_path), "--groups", groups).exit_code == 0
    with Project.open(db) as project:
        assert [p.group for p in project.collection_prompts("prompts")] == ["people", "people", "gpt", "gpt"]


def test_a_bad_collection_exits_2_and_leaves_the_project_as_it_was(tmp_path: Path) -> None:
    db = tmp_path / "p.duckdb"
    assert cli(db, "import", "prompts", write_collection(tmp_path), "--name", "study").exit_code == 0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"x9": {"participant_name": "human-2", "graded": {"user": "{passage} only"}}}), "utf-8")
    result = cli(db, "import", "prompts", bad, "--name", "study", "--replace")
    assert result.exit_code == 2
    assert "prompt 'x9' (graded): graded prompt lacks {query}" in result.stderr
    with Project.open(db) as project:
        assert len(project.collection_prompts("study")) == 4
    assert cli(db, "import", "prompts", write_collection(tmp_path), "--name", "study").exit_code == 2  # taken
