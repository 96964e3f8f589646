"""`studio check`: a healthy project passes; each kind of damage, made here by SQL, is reported
by the check that looks for it and exits 1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
from helpers import cli

from studio import Project
from studio.domain.specs import AuditDrawSpec

# A damage: the SQL that makes it, and the check that must report it.
DAMAGES: dict[str, tuple[str, str]] = {
    "a labels view that drops a topic": (
        """CREATE OR REPLACE VIEW labels AS
           SELECT label_set_id, qid, docid, grade FROM (
               SELECT label_set_id, qid, docid, arg_max_null(grade, event_id) AS grade
               FROM label_event_rows GROUP BY label_set_id, qid, docid)
           WHERE grade IS NOT NULL AND qid <> '1005'""",
        "labels",
    ),
    "a label event that misstates the grade it replaced": (
        "UPDATE label_event_rows SET previous = 7 WHERE event_id = (SELECT max(event_id) FROM label_events"
        " WHERE origin = 'person')",
        "label-events",
    ),
    "an undo that restores another grade": (
        "UPDATE label_event_rows SET grade = 1.5 WHERE event_id IN (SELECT event_id FROM label_events"
        " WHERE origin = 'undo')",
        "label-events",
    ),
    "a bank_items view that keeps deleted items": (
        """CREATE OR REPLACE VIEW bank_items AS
           SELECT bank_id, item_id, qid, kind, text, importance, gold_answers, position FROM (
               SELECT *, row_number() OVER (PARTITION BY bank_id, item_id ORDER BY event_id DESC) AS newest
               FROM bank_events) WHERE newest = 1""",
        "bank-items",
    ),
    "an edit of an item never added": (
        """INSERT INTO bank_events SELECT nextval('bank_event_ids'), bank_id, 'ghost', qid, 'edit', kind, text,
           importance, gold_answers, position, origin, source, note, batch_id, created_at
           FROM bank_events LIMIT 1""",
        "bank-events",
    ),
    "judgments of a judge run that is gone": (
        "DELETE FROM judge_runs WHERE judge_run_id = (SELECT min(judge_run_id) FROM judge_runs"
        " WHERE backend = 'simulated')",
        "references",
    ),
    "label events of a missing label set": (
        "UPDATE label_event_rows SET label_set_id = 99 WHERE event_id IN (SELECT event_id FROM label_events LIMIT 3)",
        "references",
    ),
    "events of a missing batch": (
        "DELETE FROM batches WHERE batch_id = (SELECT max(batch_id) FROM bank_events)",
        "references",
    ),
    "judgments whose call left the cache": (
        "DELETE FROM calls WHERE key IN (SELECT call_key FROM judgments WHERE call_key <> '' LIMIT 3)",
        "references",
    ),
    "rankings of a missing run": ("DELETE FROM runs WHERE name = (SELECT min(name) FROM runs)", "references"),
    "ranked documents of a missing topic": ("DELETE FROM ranking_topics WHERE topic = 0", "references"),
    "a derivation from a missing bank": ("UPDATE derivations SET bank = 'gone'", "references"),
    "a review decision of a missing label event": (
        "UPDATE review_decisions SET label_event = 999999 WHERE label_event IS NOT NULL",
        "references",
    ),
    "a review decision pointing at another pair's event": (
        "UPDATE review_decisions SET label_event = (SELECT min(event_id) FROM label_events)"
        " WHERE label_event IS NOT NULL",
        "review-log",
    ),
    "a call cached twice under one key": (
        """CREATE TABLE calls_copy AS SELECT * FROM calls;
           DROP TABLE calls;
           ALTER TABLE calls_copy RENAME TO calls;
           INSERT INTO calls SELECT * FROM calls LIMIT 1""",
        "keys",
    ),
    "a judgment recorded twice": ("INSERT INTO judgments SELECT * FROM judgments WHERE call_key <> '' LIMIT 1", "keys"),
    "a ranking that names a document twice": (
        "UPDATE run_rankings SET docs = list_append(docs, docs[1]), ranks = list_append(ranks, 99),"
        " scores = list_append(scores, -1.0) WHERE run_id = (SELECT min(run_id) FROM runs) AND topic = 0",
        "rankings",
    ),
    "a ranking whose lists are not aligned": ("UPDATE run_rankings SET ranks = ranks[2:] WHERE topic = 1", "rankings"),
    "a topic's vocabulary row out of step with its documents": (
        "UPDATE ranking_vocabularies SET docids = docids || chr(10) || 'stray' WHERE topic = 0",
        "rankings",
    ),
    "a finished run missing judgments it claims": (
        "DELETE FROM judgments WHERE qid = '1001' AND judge_run_id = (SELECT min(judge_run_id) FROM judge_runs"
        " WHERE backend = 'simulated')",
        "judge-runs",
    ),
    "a finished run counting more failures than it holds": (
        "UPDATE judge_runs SET failures = failures + 4",
        "judge-runs",
    ),
    "a finish half written": ("UPDATE judge_runs SET finished_at = NULL WHERE backend = 'simulated'", "judge-runs"),
    "a finished run without its counts": ("UPDATE judge_runs SET calls = NULL", "judge-runs"),
    "a derived label set edited behind the studio's back": (
        "INSERT INTO label_event_sources VALUES (nextval('label_event_source_ids'), 'derived', 'another program');"
        " INSERT INTO label_event_rows (event_id, label_set_id, qid, docid, grade, previous, source_id, batch_id)"
        " SELECT nextval('label_event_ids'), label_set_id, qid, docid, grade + 0.25, grade,"
        " (SELECT max(source_id) FROM label_event_sources), (SELECT min(batch_id) FROM batches) FROM labels"
        " WHERE label_set_id = (SELECT label_set_id FROM label_sets WHERE name = 'exam-bin') LIMIT 2",
        "derived",
    ),
    "item grades changed under a bank score": (
        "UPDATE judgments SET label = 5 - label WHERE item_id IS NOT NULL AND label IS NOT NULL",
        "derived",
    ),
}


def damage(path: Path, sql: str) -> None:
    with duckdb.connect(str(path)) as con:
        con.execute(sql)


def check(path: Path) -> tuple[int, dict[str, Any]]:
    result = cli(path, "check", "--format", "json")
    return result.exit_code, json.loads(result.stdout)


def failed(report: dict[str, Any]) -> set[str]:
    return {c["check"] for c in report["checks"] if not c["ok"]}


def test_a_healthy_project_passes(healthy: Path) -> None:
    code, report = check(healthy)
    assert code == 0, report
    assert report["ok"] and report["problems"] == 0 and not failed(report)
    checked = {c["check"]: c["checked"] for c in report["checks"]}
    assert all(
        checked[name] > 0
        for name in (
            "labels",
            "label-events",
            "bank-items",
            "bank-events",
            "references",
            "review-log",
            "keys",
            "rankings",
            "judge-runs",
        )
    ), checked
    assert report["judge_runs"]["finished"] == 3 and report["judge_runs"]["interrupted"] == 0


def test_the_text_report_names_every_check(healthy: Path) -> None:
    result = cli(healthy, "check")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == f"project {healthy}"
    assert sum(line.startswith("ok ") for line in lines) == 12
    assert "judge runs: 3 finished" in result.stdout


@pytest.mark.parametrize("name", DAMAGES)
def test_each_damage_is_reported_and_exits_1(name: str, healthy: Path) -> None:
    sql, expected = DAMAGES[name]
    damage(healthy, sql)
    code, report = check(healthy)
    assert code == 1
    assert not report["ok"] and report["problems"] > 0
    assert expected in failed(report), (name, [c for c in report["checks"] if not c["ok"]])
    broken = next(c for c in report["checks"] if c["check"] == expected)
    assert broken["examples"], broken


def test_the_text_report_shows_the_problem_and_stderr_counts_them(healthy: Path) -> None:
    damage(healthy, DAMAGES["judgments of a judge run that is gone"][0])
    result = cli(healthy, "check")
    assert result.exit_code == 1
    line = next(line for line in result.stdout.splitlines() if line.startswith("FAIL"))
    assert "references" in line
    assert "judgments.judge_run_id → judge_runs.judge_run_id: 280 rows name" in result.stdout
    assert "problems found" in result.stderr


def test_an_interrupted_run_is_a_note_not_a_problem(healthy: Path) -> None:
    # A run whose process is gone: pid 0 is never a process of this host.
    damage(
        healthy,
        "UPDATE judge_runs SET finished_at = NULL, pairs = NULL, calls = NULL, cache_hits = NULL,"
        " failures = NULL, owner_pid = 0, owner_host = (SELECT owner_host FROM judge_runs"
        " WHERE owner_host IS NOT NULL LIMIT 1) WHERE label_set_id = (SELECT label_set_id FROM"
        " label_sets WHERE name = 'exam-sim')",
    )
    code, report = check(healthy)
    assert code == 0, report
    assert report["judge_runs"]["interrupted"] == 1
    assert any("exam-sim" in note and "interrupted" in note for note in report["notes"])


def test_the_python_api_gives_the_same_report(healthy: Path) -> None:
    with Project.open(healthy) as project:
        report = project.check()
    assert report.ok
    assert report.as_dict() == check(healthy)[1]


def test_studio_refresh_derives_a_stale_set_afresh(healthy: Path) -> None:
    damage(healthy, DAMAGES["item grades changed under a bank score"][0])
    _, report = check(healthy)
    derived = next(c for c in report["checks"] if c["check"] == "derived")
    assert derived["examples"][0].startswith("exam-bin (bank score: exam-binary of exam-sim's item grades")
    assert "`studio refresh`" in derived["examples"][0]
    refreshed = cli(healthy, "refresh", "--format", "json")
    assert refreshed.exit_code == 0, refreshed.stderr
    assert json.loads(refreshed.stdout) == {"changed": ["exam-bin"], "blocked": {}}
    code, report = check(healthy)
    assert code == 0, failed(report)
    again = cli(healthy, "refresh", "--format", "json")
    assert json.loads(again.stdout) == {"changed": [], "blocked": {}}


def test_a_gold_label_written_around_its_audit_is_reported(sample: Path) -> None:
    """What a raw team event once did on every copy: a label in an audit's gold set that no grade of
    the audit records (the write path refuses it locally; here it goes around it)."""
    with Project.open(sample) as project:
        project.plan_audit(AuditDrawSpec("umbrela-smol", name="gold", budget=6, design="pairs", seed=2))
        pair = project.audit_pairs("gold")[0]
        project.adjudicate("gold", pair["qid"], pair["docid"], 2)
        assert project.check().ok
        project.writes.edit("gold", pair["qid"], pair["docid"], 3.0, person="around")
    code, report = check(sample)
    assert code == 1 and failed(report) == {"audits"}
    broken = next(c for c in report["checks"] if c["check"] == "audits")
    assert "written around audit gold" in broken["examples"][0]
