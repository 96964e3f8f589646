"""Judge runs' states: finished when their end is recorded; running while the process that
created them lives (the same pid, started at the same time, on this host); interrupted when it
is gone, or when it gave the judge up; `running?` when it ran on another host."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fakes import ScriptedBackend
from helpers import cli, judge_all, scalar

from studio import Project
from studio.domain.choices import JudgeRunState
from studio.domain.judging import JudgeConfig, JudgeProgress
from studio.judges.backend import ChatRequest
from studio.services.judging.run import run_judge
from studio.store.processes import is_alive, process_start, run_state, this_process

HERE = socket.gethostname()
CONFIG = JudgeConfig(method="umbrela", backend="simulated", name="sim-states", topics=["1001", "1002"])


def states(project: Project) -> dict[int, str]:
    return {r["run"]: r["state"] for r in project.judge_runs()}


def test_the_state_follows_the_record_and_the_process() -> None:
    me = this_process()
    assert me.pid == os.getpid() and me.host == HERE and me.started == process_start(me.pid)
    assert run_state(True, False, None, None, None) is JudgeRunState.finished
    assert run_state(False, False, me.pid, HERE, me.started) is JudgeRunState.running
    assert run_state(False, True, me.pid, HERE, me.started) is JudgeRunState.interrupted  # given up
    assert run_state(False, False, None, None, None) is JudgeRunState.interrupted  # before owners were kept
    assert run_state(False, False, me.pid, "another-host", me.started) is JudgeRunState.elsewhere
    assert JudgeRunState.elsewhere.value == "running?"


def test_a_pid_handed_to_another_process_is_not_the_judge() -> None:
    me = this_process()
    assert me.started is not None, "this test needs /proc"
    assert is_alive(me.pid, me.started)
    assert not is_alive(me.pid, me.started + 1)  # the same pid, another process
    assert run_state(False, False, me.pid, HERE, me.started - 1) is JudgeRunState.interrupted


@pytest.mark.process
def test_a_killed_process_is_gone_even_before_it_is_reaped() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        started = process_start(child.pid)
        assert is_alive(child.pid, started)
        os.kill(child.pid, signal.SIGKILL)
        deadline = time.monotonic() + 10  # the kernel ends it soon, but not at once on a busy machine
        while is_alive(child.pid, started) and time.monotonic() < deadline:  # a zombie until waited for
            time.sleep(0.01)
        assert not is_alive(child.pid, started)
    finally:
        child.kill()
        child.wait()
    assert not is_alive(child.pid, started)


def test_a_judge_is_running_while_it_works_and_finished_after(sample: Path) -> None:
    with Project.open(sample) as project:
        events = run_judge(project.db, CONFIG)
        first = next(events)
        assert isinstance(first, JudgeProgress)
        run = max(states(project))
        assert states(project)[run] == "running"
        listed = next(r for r in project.judge_runs() if r["run"] == run)
        assert listed["owner"] == f"{os.getpid()}@{HERE}" and listed["finished"] is None
        for _ in events:
            pass
        assert states(project)[run] == "finished"
        assert project.check().ok


def test_a_judge_given_up_reads_interrupted_at_once(sample: Path) -> None:
    with Project.open(sample) as project:
        events = run_judge(project.db, CONFIG)
        for _ in range(3):
            next(events)
        events.close()  # what a cancel in the studio's window does
        run = max(states(project))
        assert states(project)[run] == "interrupted"
        held = scalar(project.db.cursor(), "SELECT count(*) FROM judgments WHERE judge_run_id = ?", [run])
        assert 0 < held <= 56  # the calls stored before the close, each with its judgment
        report = project.check()
        assert report.ok and report.judge_runs["interrupted"] == 1
        again = judge_all(project.db, CONFIG)  # resumes from the call cache
        assert again.cache_hits == held and again.calls == 56 - held
        assert states(project)[run] == "interrupted" and states(project)[again.judge_run] == "finished"


def test_a_judge_that_fails_reads_interrupted(sample: Path) -> None:
    answered: list[ChatRequest] = []

    def reply(request: ChatRequest) -> str:
        answered.append(request)
        if len(answered) > 4:
            raise ConnectionError("the server went away")
        return "##final score: 2"

    with Project.open(sample) as project, pytest.raises(ConnectionError):
        judge_all(project.db, CONFIG, ScriptedBackend(reply))
    with Project.open(sample) as project:
        assert list(states(project).values())[-1] == "interrupted"
        assert project.check().ok


def test_a_run_of_another_host_is_running_maybe(sample: Path) -> None:
    with Project.open(sample) as project:
        events = run_judge(project.db, CONFIG)
        next(events)
        run = max(states(project))
        project.db.cursor().execute("UPDATE judge_runs SET owner_host = 'lab-gpu-7' WHERE judge_run_id = ?", [run])
        rows = project.judge_runs()
        assert rows[-1]["state"] == "running?" and (rows[-1]["owner"] or "").endswith("@lab-gpu-7")
        report = project.check()
        assert report.ok and report.judge_runs["running?"] == 1
        assert any("lab-gpu-7" in note for note in report.notes)
        events.close()


def test_the_listings_show_the_state(sample: Path) -> None:
    table = cli(sample, "judges", "list")
    assert table.exit_code == 0 and "state" in table.stdout.splitlines()[1] and "finished" in table.stdout
    listed = cli(sample, "list", "judges", "--format", "json")
    assert [r["state"] for r in json.loads(listed.stdout)] == ["finished"]
