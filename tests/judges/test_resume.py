"""The kill test, for real: `studio judge` with the local llama.cpp model is SIGKILLed mid-run
and started again; every finished call survives and none is made twice.

A DuckDB file open for writing cannot be opened by another process (not even read-only), so
the test watches the judge's own progress bar instead: stderr is a pseudo-terminal, where the
CLI draws `done/total` as calls are committed.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
from helpers import scalar
from judge_helpers import REPO, human_qrels, sample_copy

from studio import Project

pytestmark = [pytest.mark.slow, pytest.mark.process]  # a judge in a process of its own, killed

TOPICS = ("1001", "1002")
LIMIT = 30
KILL_AFTER = 3  # calls committed before the SIGKILL
NAME = "umbrela-killed"  # not the sample's own umbrela-smol
_PROGRESS = re.compile(rf"(\d+)/{LIMIT}\b")


def command(db: Path) -> list[str]:
    topics = [arg for qid in TOPICS for arg in ("--topic", qid)]
    return [
        sys.executable,
        "-m",
        "studio",
        "--db",
        str(db),
        "judge",
        "--method",
        "umbrela",
        "--backend",
        "llamacpp",
        "--name",
        NAME,
        *topics,
        "--limit",
        str(LIMIT),
        "--format",
        "json",
    ]


def environment(home: Path, terminal: bool) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("STUDIO_DB", "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")
    }
    env.update(
        HOME=str(home),
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])),
        COLUMNS="160",
        LINES="40",
        TERM="xterm-256color" if terminal else "dumb",
    )
    return env


def kill_after_progress(db: Path, home: Path, at_least: int, timeout: float = 240.0) -> tuple[int, str]:
    """Start the judge with stderr on a pseudo-terminal, SIGKILL it once its progress bar shows
    `at_least` finished calls; (last count seen, what it drew)."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        command(db),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=follower,
        env=environment(home, terminal=True),
        cwd=home,
    )
    os.close(follower)
    screen, seen = "", 0
    deadline = time.monotonic() + timeout
    try:
        while seen < at_least:
            assert process.poll() is None, f"the judge ended before the kill:\n{screen[-2000:]}"
            assert time.monotonic() < deadline, f"no progress to {at_least} calls:\n{screen[-2000:]}"
            ready, _, _ = select.select([leader], [], [], 0.1)
            if ready:
                try:
                    screen += os.read(leader, 65536).decode("utf-8", errors="replace")
                except OSError:  # the terminal closed
                    continue
                counts = [int(n) for n in _PROGRESS.findall(screen)]
                seen = max(counts, default=0)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(leader)
    assert process.returncode == -signal.SIGKILL
    return seen, screen


def stored_keys(db: Path) -> list[str]:
    with duckdb.connect(str(db)) as con:  # read-write: replays what the killed process left in the WAL
        return [k for (k,) in con.execute("SELECT key FROM calls WHERE backend <> 'import'").fetchall()]


def test_killed_judge_resumes_where_it_stopped(tmp_path: Path) -> None:
    db = sample_copy(tmp_path)
    pool = sorted(p for p in human_qrels() if p[0] in TOPICS)[:LIMIT]

    seen, _ = kill_after_progress(db, tmp_path, KILL_AFTER)
    before = stored_keys(db)
    assert seen >= KILL_AFTER
    assert KILL_AFTER <= len(before) < LIMIT, f"{len(before)} calls stored before the kill"
    assert len(set(before)) == len(before)
    with Project.open(db) as project:  # the killed run is interrupted, and the project whole
        assert [r["state"] for r in project.judge_runs() if r["label_set"] == NAME] == ["interrupted"]
        assert project.check().ok

    done = subprocess.run(
        command(db),
        capture_output=True,
        text=True,
        env=environment(tmp_path, terminal=False),
        cwd=tmp_path,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["pairs"] == LIMIT
    assert summary["cache_hits"] == len(before)
    assert summary["calls"] == LIMIT - len(before)
    assert summary["failures"] == 0

    with duckdb.connect(str(db), read_only=True) as con:
        counts = con.execute("SELECT count(*), count(DISTINCT key) FROM calls WHERE backend <> 'import'").fetchone()
        assert counts == (LIMIT, LIMIT)
        assert set(before) <= {k for (k,) in con.execute("SELECT key FROM calls WHERE backend <> 'import'").fetchall()}
        last_run = scalar(con, "SELECT max(judge_run_id) FROM judge_runs")
        rows = con.execute(
            "SELECT qid, docid, call_key, label FROM judgments WHERE judge_run_id = ?", [last_run]
        ).fetchall()
        per_pair: dict[tuple[str, str], tuple[str, float | None]] = {}
        for qid, docid, key, label in rows:
            assert (qid, docid) not in per_pair, f"{qid} {docid} judged twice"
            per_pair[(qid, docid)] = (key, label)
        assert sorted(per_pair) == pool
        assert len({key for key, _ in per_pair.values()}) == LIMIT
        labels = dict(
            ((q, d), g)
            for q, d, g in con.execute(
                "SELECT l.qid, l.docid, l.grade FROM labels l JOIN label_sets s USING (label_set_id) WHERE s.name = ?",
                [NAME],
            ).fetchall()
        )
        parsed = {pair: label for pair, (_, label) in per_pair.items() if label is not None}
        assert labels == parsed
        assert set(labels) == set(pool)
        runs = con.execute(
            "SELECT finished_at IS NOT NULL, calls, cache_hits FROM judge_runs WHERE backend <> 'import' ORDER BY 1"
        ).fetchall()
        assert runs == [(False, None, None), (True, LIMIT - len(before), len(before))]
    with Project.open(db) as project:
        assert [r["state"] for r in project.judge_runs() if r["label_set"] == NAME] == ["interrupted", "finished"]
        assert project.check().ok
