"""`studio judge --reparse`: stored outputs read again with the current parser, no model call."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import ScriptedBackend
from helpers import cli
from judge_helpers import judge, labels_of, sample_copy

from studio import Project
from studio.judges import methods
from studio.judges.parsing import Parsed


def calls_in(project: Project) -> int:
    row = project.db.cursor().execute("SELECT count(*) FROM calls").fetchone()
    assert row is not None
    return int(row[0])


def test_a_better_parser_turns_recorded_failures_into_labels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = sample_copy(tmp_path)
    backend = ScriptedBackend("I would give it 2 points.")
    with Project.open(db) as project:
        summary, _ = judge(project.db, backend_object=backend, name="wordy", topics=["1001"], limit=5)
        assert summary.failures == 5 and labels_of(project, "wordy") == {}
        calls_before = calls_in(project)

        # A parser that also reads "N points": the same stored outputs now give labels.
        monkeypatch.setattr(
            methods, "parse_umbrela", lambda text: Parsed(2.0) if "2 points" in text else Parsed(None, "no score")
        )
        counts = project.reparse_judge("wordy")
        assert counts == {"judgments": 5, "changed": 5, "failures": 0}
        assert set(labels_of(project, "wordy").values()) == {2.0}
        assert calls_in(project) == calls_before and len(backend.requests) == 5
        origins = (
            project.db.cursor()
            .execute(
                "SELECT DISTINCT e.origin, e.source FROM label_events e JOIN label_sets s USING (label_set_id)"
                " WHERE s.name = 'wordy'"
            )
            .fetchall()
        )
        assert origins == [("judge", f"reparse of judge run {summary.judge_run}")]
        # The run's count of failures follows its judgments, so `studio check` finds them agreeing.
        run = next(r for r in project.judge_runs() if r["run"] == summary.judge_run)
        assert run["failures"] == 0 and run["state"] == "finished"
        assert project.check().ok


def test_reparse_from_the_cli_reports_counts_and_refuses_human_sets(tmp_path: Path) -> None:
    db = sample_copy(tmp_path)
    with Project.open(db) as project:
        judge(project.db, name="sim", topics=["1002"], limit=4)
    result = cli(db, "judge", "--name", "sim", "--reparse", "--format", "json")
    assert result.exit_code == 0 and '"changed": 0' in result.stdout and '"judgments": 4' in result.stdout
    refused = cli(db, "judge", "--name", "human", "--reparse")
    assert refused.exit_code == 2 and "not made by a judge" in refused.stderr
