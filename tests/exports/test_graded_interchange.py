"""Item grades in and out: Rubric-workbench graded files and nuggetizer assignment JSONL round
trip byte for byte, failures included, and the imported label set is a rubric judge like any other."""

from __future__ import annotations

import gzip
import itertools
import json
from pathlib import Path

import pytest
from fakes import ScriptedBackend
from helpers import cli, copy_project, judge_all
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from typer.testing import Result

from studio import Project
from studio.domain.errors import InputError
from studio.domain.judging import JudgeConfig
from studio.formats.graded import (
    Grader,
    ItemJudgment,
    parse_nugget_assignments,
    parse_rubric_graded,
    write_nugget_assignments,
    write_rubric_graded,
)
from studio.judges.backend import ChatRequest


def sometimes_rambling() -> ScriptedBackend:
    """A rating for most cells; prose (a recorded failure) for every seventh call."""
    count = itertools.count(1)

    def reply(request: ChatRequest) -> str:
        n = next(count)
        if request.unit == "window":
            size = len(request.subject) - 2
            labels = ["support", "partial_support", "not_support"] * size
            return "Hmm." if n % 7 == 0 else repr(labels[n % 3 :][:size])
        return "Hard to say." if n % 7 == 0 else f"{n % 6}"

    return ScriptedBackend(reply, name="rambler", model="rambler-1")


@pytest.fixture(scope="module")
def judged(sample_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample project with `exam` and `assign` judged by the rambler, made once per module."""
    path = copy_project(sample_template, tmp_path_factory.mktemp("graded"), "judged.duckdb")
    with Project.sample(path) as project:
        for method, bank, name in (("exam-question", "questions", "exam"), ("nugget-assign", "nuggets", "assign")):
            config = JudgeConfig(method=method, backend="rambler", name=name, bank=bank, topics=["1001", "1004"])
            judge_all(project.db, config, sometimes_rambling())
    return path


@pytest.fixture()
def db(judged: Path, tmp_path: Path) -> Path:
    return copy_project(judged, tmp_path)


def studio(db: Path, *args: str) -> Result:
    result = cli(db, *args)
    assert result.exit_code == 0, result.output
    return result


def grades_of(db: Path, label_set: str) -> dict[tuple[str, str, str], tuple[float | None, str | None]]:
    from studio import Project

    with Project.open(db) as project:
        rows = (
            project.db.cursor()
            .execute(
                """SELECT qid, docid, item_id, label, parse_error FROM judgments WHERE judge_run_id =
               (SELECT max(judge_run_id) FROM judge_runs JOIN label_sets USING (label_set_id) WHERE name = ?)
               AND item_id IS NOT NULL""",
                [label_set],
            )
            .fetchall()
        )
    return {(q, d, i): (label, error) for q, d, i, label, error in rows}


def labels_of(db: Path, label_set: str) -> str:
    return studio(db, "export", "qrels", label_set, "--out", "-").stdout


@pytest.mark.parametrize(
    "label_set, bank, name", [("exam", "questions", "graded.jsonl.gz"), ("assign", "nuggets", "assignments.jsonl")]
)
def test_graded_files_round_trip_byte_for_byte(db: Path, tmp_path: Path, label_set: str, bank: str, name: str) -> None:
    first, second = tmp_path / name, tmp_path / f"again-{name}"
    studio(db, "export", "graded", label_set, "--out", str(first))
    studio(db, "import", "graded", str(first), "--name", "copy", "--bank", bank)
    studio(db, "export", "graded", "copy", "--out", str(second))
    assert first.read_bytes() == second.read_bytes()
    assert grades_of(db, "copy") == grades_of(db, label_set)
    assert any(label is None for label, _ in grades_of(db, "copy").values())  # failures travelled too
    assert labels_of(db, "copy") == labels_of(db, label_set)  # the judge's own label set is rebuilt


def test_a_rubric_graded_file_has_the_workbench_shape(db: Path, tmp_path: Path) -> None:
    path = tmp_path / "graded.jsonl.gz"
    studio(db, "export", "graded", "exam", "--out", str(path))
    lines = [json.loads(line) for line in gzip.decompress(path.read_bytes()).decode().splitlines()]
    qid, paragraphs = lines[0]
    assert qid == "1001" and paragraphs
    paragraph = paragraphs[0]
    assert set(paragraph) == {"paragraph_id", "text", "paragraph", "paragraph_data", "exam_grades", "grades"}
    assert paragraph["paragraph_data"]["judgments"][0]["query"] == "1001"  # the human label rides along
    grade = paragraph["exam_grades"][0]
    assert grade["prompt_type"] == "question" and grade["llm"] == "rambler-1"
    assert grade["prompt_info"]["prompt_class"] == "QuestionSelfRatedUnanswerablePromptWithChoices"
    assert all(set(r) == {"question_id", "self_rating"} for r in grade["self_ratings"])
    assert set(grade["correctAnswered"]) == {r["question_id"] for r in grade["self_ratings"] if r["self_rating"] >= 4}


def test_a_nuggetizer_file_can_start_its_own_bank(db: Path, tmp_path: Path) -> None:
    path = tmp_path / "assignments.jsonl"
    studio(db, "export", "graded", "assign", "--out", str(path))
    record = json.loads(path.read_text().splitlines()[0])
    assert {"query", "qid", "docid", "answer_text", "response_length", "nuggets"} <= set(record)
    assert {"text", "importance", "assignment"} <= set(record["nuggets"][0])
    studio(db, "import", "graded", str(path), "--name", "fresh", "--bank", "from-file")
    banks = json.loads(studio(db, "list", "banks", "-f", "json").stdout)
    assert any(b["name"] == "from-file" and b["topics"] == 2 for b in banks)
    assert grades_of(db, "fresh") == grades_of(db, "assign")


def test_bad_graded_files_change_nothing(db: Path, tmp_path: Path) -> None:
    before = labels_of(db, "exam")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '["1001", [{"paragraph_id": "p1001-01", "exam_grades": [{"llm": "x", "self_ratings": '
        '[{"question_id": "nope", "self_rating": 4}]}]}]]\n'
    )
    result = cli(db, "import", "graded", bad, "--name", "bad", "--bank", "questions")
    assert result.exit_code == 2 and "bad.jsonl" in result.stderr and "'nope'" in result.stderr
    bad.write_text('["1001", [{"paragraph_id": "p"}]]\n{"qid": 1}\n')
    result = cli(db, "import", "graded", bad, "--name", "bad", "--bank", "questions")
    assert result.exit_code == 2 and "bad.jsonl:2" in result.stderr
    lists = json.loads(studio(db, "list", "qrels", "-f", "json").stdout)
    assert "bad" not in {row["name"] for row in lists}
    assert labels_of(db, "exam") == before


def test_several_graders_in_one_file_must_be_chosen() -> None:
    entry = {
        "self_ratings": [{"question_id": "q/1", "self_rating": 3}],
        "answers": [["q/1", "3"]],
        "prompt_type": "question",
    }
    line = json.dumps(["q", [{"paragraph_id": "d", "exam_grades": [{**entry, "llm": "a"}, {**entry, "llm": "b"}]}]])
    with pytest.raises(InputError, match="choose one with --llm"):
        parse_rubric_graded(line, "f")
    assert parse_rubric_graded(line, "f", llm="b").grader.model == "b"


def test_unrated_workbench_answers_map_to_the_ends_of_the_scale() -> None:
    line = json.dumps(
        [
            "q",
            [
                {
                    "paragraph_id": "d",
                    "exam_grades": [
                        {
                            "llm": "t5",
                            "self_ratings": None,
                            "correctAnswered": ["q/1"],
                            "wrongAnswered": ["q/2"],
                            "answers": [],
                        }
                    ],
                }
            ],
        ]
    )
    grades = {j.item_id: j.grade for j in parse_rubric_graded(line, "f").judgments}
    assert grades == {"q/1": 5.0, "q/2": 0.0}


cells = st.lists(
    st.tuples(
        st.sampled_from(["1", "2"]),
        st.sampled_from(["d1", "d2", "answer/sys"]),
        st.sampled_from(["i1", "i2", "i3"]),
        st.one_of(st.none(), st.integers(0, 5).map(float)),
        st.text(max_size=12),
    ),
    unique_by=lambda c: c[:3],
    max_size=20,
)


@settings(max_examples=examples(60), deadline=None)
@given(cells)
def test_rubric_writer_and_reader_are_inverse(rows: list[tuple[str, str, str, float | None, str]]) -> None:
    rows.sort(key=lambda r: r[:3])
    judgments = [ItemJudgment(q, d, i, g, out, None if g is not None else "no rating") for q, d, i, g, out in rows]
    grader = Grader("exam-nugget", "m", "simulated", "exam-nugget/v1", "abc")
    text = write_rubric_graded(grader, judgments, {})
    if not judgments:
        return
    back = parse_rubric_graded(text, "f")
    assert back.grader == grader
    assert back.judgments == judgments


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["1", "2"]),
            st.sampled_from(["d1", "answer/sys"]),
            st.sampled_from(["a", "b"]),
            st.sampled_from([None, 0.0, 0.5, 1.0]),
        ),
        unique_by=lambda c: c[:3],
        min_size=1,
        max_size=12,
    )
)
def test_nuggetizer_writer_and_reader_are_inverse(rows: list[tuple[str, str, str, float | None]]) -> None:
    from studio.domain.models import BankItem

    rows.sort(key=lambda r: r[:3])
    items = [
        BankItem(q, f"{q}/{n}", "nugget", f"nugget {n}", "vital" if n == "a" else "okay")
        for q in ("1", "2")
        for n in ("a", "b")
    ]
    judgments = [
        ItemJudgment(q, d, f"{q}/{n}", g, None, None if g is not None else "window failed") for q, d, n, g in rows
    ]
    text = write_nugget_assignments(judgments, items, {}, {})
    back = parse_nugget_assignments(text, "f")
    assert back.judgments == judgments
    assert {(i.qid, i.item_id) for i in back.items} <= {(i.qid, i.item_id) for i in items}
