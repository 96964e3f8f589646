"""`studio import responses` reads one system's `qid<TAB>text`, and `studio import answer-labels` the
four verdict layouts of the Gen-IR comparison's release (tests/published/genir) into label sets of
(topic, answer) verdicts: one import per system file; a broken file refused whole, with its line,
the project as it was."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from answers.genir_project import ANSWERS, EXPERIMENTS, VERDICT_FILES, build, file_values
from helpers import cli, scalar

from studio import Project


@pytest.fixture
def project(genir_db: Path) -> Path:
    return genir_db


def labels(db: Path, name: str) -> dict[tuple[str, str], float]:
    with Project.open(db) as opened:
        rows = opened.db.cursor().execute(
            "SELECT qid, docid, grade FROM labels JOIN label_sets USING (label_set_id) WHERE name = ?", [name]
        )
        return {(q, d): g for q, d, g in rows.fetchall()}


@pytest.mark.parametrize("layout", list(VERDICT_FILES))
def test_each_layout_becomes_the_verdicts_of_each_system(project: Path, layout: str) -> None:
    expected = {
        (qid, f"answer/{system}"): value
        for system in VERDICT_FILES[layout]
        for qid, value in file_values(layout, system).items()
    }
    assert labels(project, layout) == expected


def test_the_answer_files_load_as_two_systems(project: Path) -> None:
    listed = json.loads(cli(project, "list", "responses", "-f", "json").stdout)
    assert [(row["system"], row["topics"]) for row in listed] == [("gpt-4", 4), ("lier-gpt-4", 4)]


def test_the_imported_runs_keep_what_the_labels_cannot(project: Path) -> None:
    with Project.open(project) as opened:
        card = opened.answer_card("subtopics", "130510", "lier-gpt-4")
        assert [(s["entry"], s["satisfied"]) for s in card["subtopics"]] == [
            (0, True), (1, True), (2, False), (3, False), (4, False), (5, False), (6, False),
        ]  # fmt: skip
        assert card["judged"] == card["verdict"] == 2 / 7
        preference = opened.answer_card("preferences", "130510", "gpt-4")
        assert [
            (e["docid"], e["exemplar_first"], e["answer_first"], e["outcome"]) for e in preference["exemplars"]
        ] == [
            ("8612910", "answer", "exemplar", "tie")  # `b` twice: the second shown both times
        ]
        assert opened.check().problems == 0
        runs = {(r["label_set"], r["backend"], r["method"]) for r in opened.judge_runs()}
    assert ("preferences", "import", "pairwise") in runs and ("subtopics", "import", "subtopic") in runs


def broken_copy(tmp_path: Path, layout: str, line: int, replacement: str) -> Path:
    source = EXPERIMENTS / VERDICT_FILES[layout]["gpt-4"]
    lines = source.read_text().split("\n")
    lines[line - 1] = replacement
    copy = tmp_path / source.name
    copy.write_text("\n".join(lines))
    return copy


@pytest.mark.parametrize(
    ("layout", "line", "replacement", "reason"),
    [
        ("binary", 3, "130510\t0\tNo489204\t0\tyes", "two lines glued together"),
        ("graded", 2, "1110199\t0\t5", "grade 5 is outside the scale 0–3"),
        ("preferences", 4, "qid\tversion\tgreater_lev\tdoc1\tlesser_lev\tdoc2\tprefered", "header in the middle"),
        ("subtopics", 2, "1110199\t0\tYes\t1\tYes\t3\tYes", "entry '3' where entry 2 was due"),
    ],
)
def test_a_broken_file_is_refused_whole_and_changes_nothing(
    tmp_path: Path, layout: str, line: int, replacement: str, reason: str
) -> None:
    db = build(tmp_path / "p.duckdb", verdicts=False)  # no verdicts yet: the set would be new
    before = _state(db)
    bad = broken_copy(tmp_path, layout, line, replacement)
    done = cli(db, "import", "answer-labels", bad, "--system", "gpt-4", "--method", layout, "--name", "new")
    assert done.exit_code == 2
    assert f"{bad}:{line}: " in done.stderr and reason in done.stderr
    assert "Traceback" not in done.stderr
    assert _state(db) == before


def _state(db: Path) -> tuple[int, int, int, int]:
    with Project.open(db) as opened:
        con = opened.db.cursor()
        found = [scalar(con, f"SELECT count(*) FROM {table}") for table in ("label_sets", "label_events", "judgments")]
        return found[0], found[1], found[2], len(opened.judge_runs())


def test_one_system_twice_needs_replace_and_replacing_drops_what_the_file_leaves_out(
    project: Path, tmp_path: Path
) -> None:
    again = ("import", "answer-labels", EXPERIMENTS / VERDICT_FILES["binary"]["gpt-4"], "--system", "gpt-4")
    refused = cli(project, *again, "--method", "binary", "--name", "binary")
    assert refused.exit_code == 2 and "already (use --replace)" in refused.stderr
    shorter = tmp_path / "three-topics"
    shorter.write_text("156493\t0\tNo\n1110199\t0\tYes\n130510\t0\tYes\n")
    done = cli(
        project,
        "import",
        "answer-labels",
        shorter,
        "--system",
        "gpt-4",
        "--method",
        "binary",
        "--name",
        "binary",
        "--replace",
    )
    assert done.exit_code == 0, done.stderr
    gpt4 = {q: v for (q, d), v in labels(project, "binary").items() if d == "answer/gpt-4"}
    assert gpt4 == {"156493": 0.0, "1110199": 1.0, "130510": 1.0}  # 489204 left out: its verdict removed
    history = json.loads(cli(project, "history", "--qrels", "binary", "-f", "json").stdout)
    assert history == []  # imports are no person's edits: nothing to undo


def test_a_set_holds_one_method(project: Path) -> None:
    done = cli(
        project, "import", "answer-labels", EXPERIMENTS / VERDICT_FILES["graded"]["gpt-4"], "--system", "x",
        "--method", "graded", "--name", "binary",
    )  # fmt: skip
    assert done.exit_code == 2 and "holds binary verdicts" in done.stderr


def test_verdicts_on_answers_not_loaded_are_kept_with_a_warning(tmp_path: Path) -> None:
    db = tmp_path / "p.duckdb"
    file = EXPERIMENTS / VERDICT_FILES["binary"]["gpt-4"]
    done = cli(db, "import", "answer-labels", file, "--system", "gpt-4", "--method", "binary", "--name", "b")
    assert done.exit_code == 0, done.stderr
    assert "no answers of 'gpt-4' are loaded" in done.stderr
    assert "4 topic(s) the project does not know" in done.stderr
    assert len(labels(db, "b")) == 4


def test_an_answer_file_without_system_is_refused(tmp_path: Path) -> None:
    done = cli(tmp_path / "p.duckdb", "import", "responses", ANSWERS / "responses_gpt-4")
    assert done.exit_code == 2 and "give --system" in done.stderr


def test_a_gzipped_release_file_reads_alike(tmp_path: Path) -> None:
    packed = tmp_path / "binary.gz"
    packed.write_bytes(gzip.compress((EXPERIMENTS / VERDICT_FILES["binary"]["gpt-4"]).read_bytes()))
    db = tmp_path / "p.duckdb"
    assert (
        cli(db, "import", "answer-labels", packed, "--system", "gpt-4", "--method", "binary", "--name", "b").exit_code
        == 0
    )
    assert {q: v for (q, _), v in labels(db, "b").items()} == file_values("binary", "gpt-4")
