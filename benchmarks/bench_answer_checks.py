"""A check on the Answers screen on 10 systems × 300 topics, two answers label sets: what the writer
does behind one key (write the check, then read the leaderboard and τ between the methods again,
`AnswerSession.write` + `figures`), against `Project.answer_scores` of the checked set measured in
the same run (the leaderboard alone: what a check cannot cost less than).

Builds the graded and binary sets of the project `bench_answers` builds (verdict files in the Gen-IR
release's layouts), opens a session on `graded`, and times:
* `open_seconds`: `load()` and the first `figures()` (what the screen's opening worker does);
* `check_seconds`: 20 checks, each `keep()` or an override, written and followed by `figures()`
  (median and max), which is what a key costs the writer, never the UI thread;
* the anchor: `answer_scores(["graded"])` (median of 5).
Prints one JSON object with the ratios. Usage: python -m benchmarks.bench_answer_checks
"""

from __future__ import annotations

import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.bench_answers import SYSTEMS, TOPICS, import_verdicts, write_verdicts
from studio import Project

CHECKS = 20
SETS = ("graded", "binary")  # τ between them after each check


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        db = folder / "answers.duckdb"
        files = write_verdicts(folder, random.Random(7))
        with Project.open(db) as project:
            import_verdicts(project, files, SETS)
            start = time.perf_counter()
            session = project.check_answers("graded", person="bench")
            session.load()
            session.figures()
            opened = time.perf_counter() - start
            checks = []
            for index in range(CHECKS):
                start = time.perf_counter()
                step = session.keep() if index % 2 else session.decide(float(index % 4))
                session.settle(step, session.write(step))
                session.figures()
                checks.append(time.perf_counter() - start)
            anchor = []
            for _ in range(5):
                start = time.perf_counter()
                project.answer_scores(["graded"])
                anchor.append(time.perf_counter() - start)
    check, scores = statistics.median(checks), statistics.median(anchor)
    report = {
        "benchmark": "answer_checks",
        "systems": SYSTEMS,
        "topics": TOPICS,
        "label_sets": len(SETS),
        "open_seconds": round(opened, 3),
        "check_seconds": {"median": round(check, 4), "max": round(max(checks), 4)},
        "anchor_answer_scores_seconds": round(scores, 4),
        "check_ratio_to_answer_scores": round(check / scores, 2),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
