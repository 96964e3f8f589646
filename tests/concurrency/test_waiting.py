"""Taking turns on a project file: a command waits for the process that holds it and says whom it
waits for, gives up after --wait seconds with exit 1 and nothing changed, and never shows
DuckDB's own lock message; two judges writing different label sets at once both finish."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path

import duckdb
from terminal_helpers import STUDIO

from studio.store.database import Database
from studio.store.file_lock import wanted_since


def studio(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(STUDIO), "--db", str(db), *args], capture_output=True, text=True, timeout=120)


def without_paths(text: str, db: Path) -> str:
    """stderr without the project's path (its folder names may hold any word)."""
    return text.replace(str(db), "<project>").lower()


def human_grade(db: Path, qid: str, docid: str) -> float | None:
    exported = studio(db, "export", "qrels", "human", "--out", "-")
    for line in exported.stdout.splitlines():
        q, _, d, grade = line.split()
        if (q, d) == (qid, docid):
            return float(grade)
    return None


def test_a_command_waits_for_the_holder_and_says_whom(sample: Path) -> None:
    holder = Database(sample)  # this process holds the file (and the studio's lock) until it closes it
    timer = threading.Timer(2.0, holder.close)
    timer.start()
    start, asked = time.monotonic(), time.time()
    done = studio(sample, "--wait", "20", "list", "qrels", "--format", "json")
    waited = time.monotonic() - start
    timer.join()
    assert done.returncode == 0, done.stderr
    assert {row["name"] for row in json.loads(done.stdout)} >= {"human", "umbrela-smol"}
    assert f"waiting for {sample}: PID {os.getpid()}" in done.stderr  # who, by the lock-info record
    assert "up to 20 s" in done.stderr
    assert 1.5 < waited < 15
    assert wanted_since(str(sample), asked)  # the holder could see that the file was wanted
    assert "lock" not in without_paths(done.stderr, sample)


def test_a_command_that_waits_too_long_exits_1_and_changes_nothing(sample: Path) -> None:
    before = human_grade(sample, "1001", "p1001-02")
    holder = Database(sample)
    try:
        done = studio(sample, "--wait", "1", "label", "--qrels", "human", "1001", "p1001-02", "3")
    finally:
        holder.close()
    assert done.returncode == 1
    assert f"is in use by PID {os.getpid()}" in done.stderr and "changed nothing" in done.stderr
    assert "lock" not in without_paths(done.stderr, sample) and "duckdb" not in without_paths(done.stderr, sample)
    assert human_grade(sample, "1001", "p1001-02") == before


def test_a_program_outside_the_studio_holding_the_file_is_waited_for_without_duckdbs_message(sample: Path) -> None:
    outside = duckdb.connect(str(sample))  # DuckDB's own lock, without the studio's
    try:
        done = studio(sample, "--wait", "1", "list", "qrels")
    finally:
        outside.close()
    assert done.returncode == 1
    assert f"PID {os.getpid()}" in done.stderr
    assert "Conflicting" not in done.stderr and "IO Error" not in done.stderr
    assert "lock" not in without_paths(done.stderr, sample)
    assert studio(sample, "list", "qrels").returncode == 0  # free again


def test_two_judges_writing_different_label_sets_at_once_both_finish(sample: Path) -> None:
    judges = [
        subprocess.Popen(
            [
                str(STUDIO),
                "--db",
                str(sample),
                "judge",
                "--method",
                "umbrela",
                "--backend",
                "simulated",
                "--ref",
                "human",
                "--kappa",
                "0.5",
                "--name",
                name,
                "--pool",
                "qrels:human",
                "--format",
                "json",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("sim-a", "sim-b")
    ]
    outcomes = [judge.communicate(timeout=300) for judge in judges]
    assert [judge.returncode for judge in judges] == [0, 0], [err for _, err in outcomes]
    summaries = [json.loads(out) for out, _ in outcomes]
    assert [s["pairs"] for s in summaries] == [280, 280]
    con = duckdb.connect(str(sample), read_only=True)
    try:
        calls, keys = con.execute("SELECT count(*), count(DISTINCT key) FROM calls").fetchone() or (0, 0)
        judged = dict(
            con.execute(
                "SELECT s.name, count(*) FROM judgments JOIN judge_runs USING (judge_run_id)"
                " JOIN label_sets AS s USING (label_set_id) GROUP BY s.name"
            ).fetchall()
        )
        used = con.execute("SELECT count(DISTINCT call_key) FROM judgments WHERE call_key <> ''").fetchone()
    finally:
        con.close()
    assert calls == keys  # one entry per call
    assert judged["sim-a"] == judged["sim-b"] == 280  # no judgment lost
    assert used is not None and used[0] <= calls  # every judgment's call is in the cache
