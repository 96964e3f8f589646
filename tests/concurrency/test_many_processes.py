"""One project, many processes: a local judge (the bundled SmolLM2 through llama.cpp) labels pairs
in one process while others list, evaluate, label, export and review in the TUI (a real terminal),
all on the same project file. Nobody is refused, nobody waits long, no output mentions a lock,
and when the judge ends its labels and every edit are there."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from terminal_helpers import STUDIO, Terminal

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

JUDGED = 60  # pairs the judge labels: long enough to outlast everything done meanwhile
WAIT_BUDGET = 10.0  # seconds any command may take (start-up included) while the judge runs


def studio(db: Path, *args: str, env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess[str], float]:
    start = time.monotonic()
    done = subprocess.run([str(STUDIO), "--db", str(db), *args], capture_output=True, text=True, timeout=60, env=env)
    return done, time.monotonic() - start


def no_lock_words(*texts: str) -> bool:
    return not any(word in text.lower() for text in texts for word in ("lock", "conflicting", "io error"))


def test_a_judge_runs_while_other_processes_list_eval_label_export_and_review(
    sample: Path, terminal: Terminal, tmp_path: Path
) -> None:
    judge = subprocess.Popen(
        [
            str(STUDIO),
            "--db",
            str(sample),
            "judge",
            "--method",
            "umbrela",
            "--backend",
            "llamacpp",
            "--name",
            "umbrela-live",
            "--pool",
            "qrels:human",
            "--limit",
            str(JUDGED),
            "--format",
            "json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # The judge's label set exists once it has started writing.
        deadline = time.monotonic() + 60
        while True:
            listed, _ = studio(sample, "list", "qrels", "--format", "json")
            if any(row["name"] == "umbrela-live" for row in json.loads(listed.stdout or "[]")):
                break
            assert judge.poll() is None and time.monotonic() < deadline, "the judge never started"
            time.sleep(0.5)

        commands = [
            ("list", "qrels", "--format", "json"),
            ("eval", "--qrels", "human", "-m", "nDCG@10", "--format", "json"),
            ("label", "--qrels", "umbrela-smol", "1001", "p1001-01", "3", "--person", "ana"),
            ("export", "qrels", "umbrela-smol", "--out", str(tmp_path / "exported.txt")),
            ("eval", "--qrels", "umbrela-live", "-m", "P@5", "--format", "json"),
        ]
        for command in commands:
            done, seconds = studio(sample, *command)
            print(f"{' '.join(command[:2])}: {seconds:.2f} s while the judge runs")
            assert done.returncode == 0, (command, done.stderr)
            assert seconds < WAIT_BUDGET, (command, seconds)
            assert no_lock_words(done.stdout, done.stderr), (command, done.stderr)
        assert judge.poll() is None, "the judge ended before the other commands were done: nothing was shown"

        terminal.start(
            [
                str(STUDIO),
                "--db",
                str(sample),
                "tui",
                "--screen",
                "review",
                "--qrels",
                "umbrela-smol",
                "--person",
                "ben",
            ]
        )
        terminal.wait_for(lambda s: "pair 1 of" in s, 30, "the Review screen with its queue")
        terminal.press("2")
        terminal.wait_for(lambda s: "1 decided" in s, 10, "the decision recorded")
        terminal.press("0")
        terminal.wait_for(lambda s: "2 decided" in s, 10, "the second decision recorded")
        assert judge.poll() is None, "the judge ended before the review was done"
        terminal.press("q")
        deadline = time.monotonic() + 15
        while terminal.exit_status() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert terminal.exit_status() == 0

        out, err = judge.communicate(timeout=600)
    finally:
        if judge.poll() is None:
            judge.kill()
    assert judge.returncode == 0, err
    assert no_lock_words(out, err), err
    summary = json.loads(out)
    assert summary["pairs"] == JUDGED

    runs, _ = studio(sample, "judges", "list", "--format", "json")
    [run] = [r for r in json.loads(runs.stdout) if r["label_set"] == "umbrela-live"]
    assert run["calls"] + run["cache_hits"] == JUDGED
    judged, _ = studio(sample, "judges", "failures", "umbrela-live", "--format", "json")
    labels, _ = studio(sample, "export", "qrels", "umbrela-live", "--out", "-")
    assert len(labels.stdout.splitlines()) + len(json.loads(judged.stdout)) == JUDGED  # every judgment is there
    history, _ = studio(sample, "history", "--qrels", "umbrela-smol", "--limit", "10", "--format", "json")
    people = [(row["origin"], row["source"]) for row in json.loads(history.stdout)]
    assert people.count(("person", "ben")) == 2 and people.count(("person", "ana")) == 1
