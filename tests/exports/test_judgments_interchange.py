"""UMBRELA-style judgment JSONL: export a judge's run, read it back as a label set."""

from __future__ import annotations

import json
from pathlib import Path

from fakes import ScriptedBackend, passage_number
from helpers import cli, judge_all

from studio import Project
from studio.domain.judging import JudgeConfig
from studio.judges.backend import ChatRequest


def half_readable(request: ChatRequest) -> str:
    """A readable score for even passages, prose for odd ones (recorded failures)."""
    number = passage_number(request)
    return f"##final score: {number % 4}" if number % 2 == 0 else "It depends."


def test_judgments_round_trip_into_an_identical_label_set(sample: Path, tmp_path: Path) -> None:
    db = sample  # a copy of the sample project, built once per test process
    with Project.sample(db) as project:
        config = JudgeConfig(method="umbrela", backend="half", name="half", topics=["1001"])
        judge_all(project.db, config, ScriptedBackend(half_readable, name="half", model="half"))
    out = tmp_path / "half.jsonl"
    result = cli(db, "export", "judgments", "half", "--out", out)
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 28
    ok = [r for r in lines if r["result_status"] == 1]
    failed = [r for r in lines if r["result_status"] == 0]
    assert len(ok) == len(failed) == 14
    assert all(r["prediction"] == "It depends." and r["judgment"] is None and r["error"] for r in failed)
    assert all(r["prompt"][-1]["role"] == "user" and "Passage:" in r["prompt"][-1]["content"] for r in lines)
    assert all(isinstance(r["judgment"], int) for r in ok)

    result = cli(db, "import", "judgments", out, "--name", "copy")
    assert result.exit_code == 0, result.output
    assert "14 failed judgment(s)" in result.stderr
    with Project.open(db) as project:
        con = project.db.cursor()

        def labels(name: str) -> set[tuple[str, str, float]]:
            return set(
                con.execute(
                    "SELECT l.qid, l.docid, l.grade FROM labels l JOIN label_sets s"
                    " USING (label_set_id) WHERE s.name = ?",
                    [name],
                ).fetchall()
            )

        assert labels("copy") == labels("half") and len(labels("copy")) == 14
        kinds = dict(con.execute("SELECT name, kind FROM label_sets").fetchall())
        assert kinds["copy"] == "llm"
    # The judge run travels too: raw outputs and failures, and the file comes back byte for byte.
    again = tmp_path / "again.jsonl"
    result = cli(db, "export", "judgments", "copy", "--out", again)
    assert result.exit_code == 0, result.output
    assert again.read_text() == out.read_text()
    failures = cli(db, "judge", "--name", "copy", "--failures", "-f", "json")
    assert [r["output"] for r in json.loads(failures.stdout)] == ["It depends."] * 14


def test_bad_judgment_files_are_refused_with_the_line(sample: Path, tmp_path: Path) -> None:
    db = sample  # a copy of the sample project, built once per test process
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"qid": "1", "docid": "a", "judgment": 2}\n{"qid": "1", "docid": "a", "judgment": 1}\n')
    result = cli(db, "import", "judgments", bad)
    assert result.exit_code == 2 and f"{bad}:2" in result.stderr
    not_judge = cli(db, "export", "judgments", "human", "--out", "-")
    assert not_judge.exit_code == 2 and "not made by a judge" in not_judge.stderr
