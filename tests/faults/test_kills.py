"""Crash safety shown by fault injection: real studio processes on a real project file are
SIGKILLed at random moments (delays drawn from a fixed seed), one at a time, again and again:

* `studio judge` (simulated backend) in the middle of its calls,
* a process making label edits, and one making bank edits, through the Python API, each
  printing an acknowledgement once an edit is committed (`edit_driver.py`),
* `studio tui` on Review in a terminal (tmux), while review decisions are keyed in.

After each kill the project must open, `studio check` must pass, every acknowledged edit must be
there (and nothing but the one edit in flight beyond it), every stored call must have its
judgment with the label its output gives, a killed judge run must read as interrupted, never as
finished or running, and judging again must complete it from the call cache. The figures are
printed at the end (`pytest -s`).
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from faults.edit_driver import BANK, bank_fingerprint
from faults.faults_helpers import Figures, Killable, driver_command, studio_command
from faults.tmux_terminal import Terminal
from helpers import cli, copy_project, judge_all

from studio import Project
from studio.domain.check_report import CheckResult
from studio.domain.judging import JudgeConfig
from studio.judges.methods import get_method
from studio.services.integrity.replay import replay_bank
from studio.store import integrity as integrity_store

pytestmark = pytest.mark.slow

SEED = 20251113
JUDGE_KILLS, LABEL_KILLS, BANK_KILLS, TUI_KILLS = 14, 16, 13, 7
JUDGE_TOPICS = ("1001", "1002", "1003", "1004")
JUDGE_PAIRS = 28 * len(JUDGE_TOPICS)  # every human-judged pair of those topics
PROGRESS = re.compile(rf"\d+/{JUDGE_PAIRS}\b")  # the judge's progress bar


@pytest.fixture(scope="module")
def figures() -> Iterator[Figures]:
    found = Figures()
    yield found
    print(f"\n{found.summary()}")
    for loss in found.losses:
        print(f"  lost: {loss}")


@pytest.fixture(scope="module")
def template(sample_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample project, copied once for this module's processes to work on."""
    return copy_project(sample_template, tmp_path_factory.mktemp("faults"), "template.duckdb")


@pytest.fixture()
def project_file(template: Path, tmp_path: Path) -> Path:
    return copy_project(template, tmp_path, "project.duckdb")


def passes_check(db: Path) -> None:
    result = cli(db, "check")
    assert result.exit_code == 0, result.stdout + result.stderr


def scalar(project: Project, sql: str, params: list[Any] | None = None) -> Any:
    row = project.db.cursor().execute(sql, params or []).fetchone()
    assert row is not None
    return row[0]


# -- a judge ------------------------------------------------------------------------------------


def judge_config(seed: int) -> JudgeConfig:
    return JudgeConfig(method="umbrela", backend="simulated", name="sim-kill", seed=seed, topics=list(JUDGE_TOPICS))


def judge_command(db: Path, seed: int) -> list[str]:
    topics = [arg for qid in JUDGE_TOPICS for arg in ("--topic", qid)]
    return studio_command(
        db,
        "judge",
        "--method",
        "umbrela",
        "--backend",
        "simulated",
        "--name",
        "sim-kill",
        "--seed",
        str(seed),
        *topics,
        "--format",
        "json",
    )


def test_a_killed_judge_keeps_every_stored_call_and_resumes(
    project_file: Path, tmp_path: Path, figures: Figures
) -> None:
    rng = random.Random(SEED)
    parse = get_method("umbrela").parse
    for cycle in range(JUDGE_KILLS):
        seed = 1000 + cycle  # a new seed, new call keys: every cycle makes real calls
        with Project.open(project_file) as project:
            runs_before = int(scalar(project, "SELECT coalesce(max(judge_run_id), 0) FROM judge_runs"))
            keys_before = {k for (k,) in project.db.cursor().execute("SELECT key FROM calls").fetchall()}
        judge = Killable(judge_command(project_file, seed), tmp_path, terminal_stderr=True)
        try:
            # From the first progress drawn (the run exists), or now and then before it.
            if rng.random() < 0.85:
                judge.wait_drawn(PROGRESS)
            time.sleep(rng.uniform(0.0, 0.5))
            status = judge.kill()
        finally:
            judge.close()
        assert status in (0, -9)
        figures.count("judge")
        passes_check(project_file)
        with Project.open(project_file) as project:
            new_runs = [r for r in project.judge_runs() if r["run"] > runs_before]
            assert len(new_runs) <= 1
            if not new_runs:  # killed before it began: nothing to find, nothing to resume
                continue
            run = new_runs[0]
            assert run["state"] != "running"
            assert run["state"] == ("finished" if status == 0 else run["state"])
            if run["state"] == "finished":
                figures.finished_before_kill += 1
            else:
                assert run["state"] == "interrupted" and run["finished"] is None and run["calls"] is None
            con = project.db.cursor()
            stored = {k: o for k, o in con.execute("SELECT key, output FROM calls").fetchall() if k not in keys_before}
            judged = con.execute(
                "SELECT qid, docid, call_key, label FROM judgments WHERE judge_run_id = ?", [run["run"]]
            ).fetchall()
            current = {
                (q, d): g
                for q, d, g in con.execute(
                    "SELECT l.qid, l.docid, l.grade FROM labels l JOIN label_sets s USING (label_set_id)"
                    " WHERE s.name = 'sim-kill'"
                ).fetchall()
            }
            by_key = {key: (qid, docid, label) for qid, docid, key, label in judged}
            assert len(by_key) == len(judged), "one judgment per call"
            assert set(by_key) <= set(stored), "a judgment of a call the cache does not hold"
            for key, output in stored.items():
                if key not in by_key:
                    figures.losses.append(f"judge run {run['run']}: the stored call {key} has no judgment")
                    continue
                qid, docid, label = by_key[key]
                assert label == parse(output).label
                assert current.get((qid, docid)) == label, "the label set holds the judged label"
            figures.judgments += len(judged)
            # Judging again completes the label set from the call cache.
            summary = judge_all(project.db, judge_config(seed))
            assert summary.cache_hits == len(stored) and summary.calls == JUDGE_PAIRS - len(stored)
            states = {r["run"]: r["state"] for r in project.judge_runs()}
            assert states[summary.judge_run] == "finished" and states[run["run"]] == run["state"]
            assert project.check().ok
    assert not figures.losses


# -- label edits ----------------------------------------------------------------------------------


def edits_until_killed(kind: str, project_file: Path, seed: int, delay: float, folder: Path) -> list[list[str]]:
    """Start an editing loop (`labels` or `banks`), SIGKILL it `delay` seconds after it is ready,
    and return the edits it acknowledged before."""
    editor = Killable(driver_command(kind, project_file, seed), folder)
    try:
        editor.wait_for("ready")
        time.sleep(delay)
        editor.kill()
    finally:
        editor.close()
    return [line.split()[2:] for line in editor.seen if line.startswith(f"ack {kind} ")]


def test_killed_label_edits_keep_every_acknowledged_edit(project_file: Path, tmp_path: Path, figures: Figures) -> None:
    rng = random.Random(SEED + 1)
    for cycle in range(LABEL_KILLS):
        with Project.open(project_file) as project:
            before = int(scalar(project, "SELECT coalesce(max(event_id), 0) FROM label_events"))
        acks = edits_until_killed("labels", project_file, SEED + cycle, rng.uniform(0.02, 0.4), tmp_path)
        figures.count("label edits", len(acks))
        passes_check(project_file)
        with Project.open(project_file) as project:
            events = {
                int(e): (s, q, d, g)
                for e, s, q, d, g in project.db.cursor()
                .execute(
                    "SELECT e.event_id, s.name, e.qid, e.docid, e.grade FROM label_events e JOIN label_sets s"
                    " USING (label_set_id) WHERE e.event_id > ? AND e.origin IN ('person', 'undo')",
                    [before],
                )
                .fetchall()
            }
        for event, name, qid, docid, grade in acks:
            kept = events.get(int(event))
            if kept != (name, qid, docid, None if grade == "none" else float(grade)):
                figures.losses.append(f"label edit {event} ({name} {qid} {docid} {grade}): found {kept}")
        last = max((int(a[0]) for a in acks), default=before)
        assert {e for e in events if e <= last} == {int(a[0]) for a in acks}, "an edit nobody acknowledged"
        in_flight = [e for e in events if e > last]
        assert len(in_flight) <= 1, "only the edit under way when the kill came may lack its acknowledgement"
        figures.in_flight += len(in_flight)
    assert not figures.losses


# -- bank edits -----------------------------------------------------------------------------------


def bank_state_at(project: Project, event: int) -> str:
    """The fingerprint of the bank as its events up to `event` leave it."""
    con = project.db.cursor()
    bank = int(scalar(project, "SELECT bank_id FROM banks WHERE name = ?", [BANK]))
    events = [e for e in integrity_store.bank_events(con) if e[1] == bank and e[0] <= event]
    items = replay_bank(events, {}, CheckResult("replay", ""))
    return bank_fingerprint(
        [
            {"qid": qid, "item_id": item, "kind": kind, "text": text, "importance": importance, "position": position}
            for (_, item), (qid, kind, text, importance, _, position) in items.items()
        ]
    )


def test_killed_bank_edits_keep_every_acknowledged_edit(project_file: Path, tmp_path: Path, figures: Figures) -> None:
    rng = random.Random(SEED + 2)
    for cycle in range(BANK_KILLS):
        with Project.open(project_file) as project:
            before = int(scalar(project, "SELECT coalesce(max(event_id), 0) FROM bank_events"))
        acks = edits_until_killed("banks", project_file, SEED + cycle, rng.uniform(0.02, 0.5), tmp_path)
        figures.count("bank edits", len(acks))
        passes_check(project_file)
        with Project.open(project_file) as project:
            con = project.db.cursor()
            batches = dict(
                con.execute("SELECT event_id, batch_id FROM bank_events WHERE event_id > ?", [before]).fetchall()
            )
            for op, event, fingerprint in acks:
                if int(event) not in batches or bank_state_at(project, int(event)) != fingerprint:
                    figures.losses.append(f"bank edit {op} up to event {event}: not as acknowledged")
            last = max((int(a[1]) for a in acks), default=before)
            in_flight = {batch for event, batch in batches.items() if event > last}
            assert len(in_flight) <= 1, "only the edit under way when the kill came may lack its acknowledgement"
            figures.in_flight += len(in_flight)
    assert not figures.losses


# -- the studio's window --------------------------------------------------------------------------

REVIEW_KEYS = ("0", "1", "2", "3", "a", "h", "s")
TUI_PERSON = "fault-tui"


def test_a_killed_review_keeps_every_decision_it_showed(project_file: Path, tmp_path: Path, figures: Figures) -> None:
    rng = random.Random(SEED + 3)
    for cycle in range(TUI_KILLS):
        with Project.open(project_file) as project:
            before = int(scalar(project, "SELECT coalesce(max(decision_id), 0) FROM review_decisions"))
            events_before = int(scalar(project, "SELECT coalesce(max(event_id), 0) FROM label_events"))
        terminal = Terminal(f"faults-{cycle}-{rng.getrandbits(24):06x}", tmp_path)
        try:
            terminal.start(
                studio_command(
                    project_file,
                    "tui",
                    "--screen",
                    "review",
                    "--ref",
                    "human",
                    "--qrels",
                    "umbrela-smol",
                    "--person",
                    TUI_PERSON,
                )
            )
            terminal.wait_for(lambda screen: " decided · " in screen, 60, "the review header")
            sent = 0
            for _ in range(rng.randint(1, 6)):
                terminal.press(rng.choice(REVIEW_KEYS))
                sent += 1
                time.sleep(rng.uniform(0.0, 0.2))
            shown = Terminal.decided(terminal.screen())
            terminal.kill_program()
        finally:
            terminal.close()
        figures.count("review (TUI)", shown)
        passes_check(project_file)
        with Project.open(project_file) as project:
            decided = int(
                scalar(
                    project,
                    "SELECT count(*) FROM review_decisions WHERE decision_id > ? AND person = ?"
                    " AND action IN ('grade', 'accept', 'reference')",
                    [before, TUI_PERSON],
                )
            )
            edits = int(
                scalar(
                    project,
                    "SELECT count(*) FROM label_events WHERE event_id > ? AND source = ?",
                    [events_before, TUI_PERSON],
                )
            )
            logged = int(scalar(project, "SELECT count(*) FROM review_decisions WHERE decision_id > ?", [before]))
        if decided < shown:
            figures.losses.append(f"review {cycle}: {shown} decisions shown, {decided} kept")
        assert edits == decided, "every review grade has its decision in the log, and no decision lacks its grade"
        assert logged <= sent
        figures.in_flight += decided - shown
    assert not figures.losses
