"""`studio answers` on 10 systems × 300 topics (budget: ≤ 1 s, the command line end to end).

Builds a project with one graded answers label set (10 verdict files of 300 topics each, imported
with `studio import answer-labels`'s service) and three more (binary, subtopics, preferences), then
times in the same run:
* `cli`: `studio --db P answers --labels graded -f json` in a fresh process (median and max of 5);
* `cli_four_methods`: the same with the four label sets (40 rows);
* `in_process`: `Project.answer_scores` on an open project (median of 5);
* the anchors: `studio list qrels` on the same project (the start-up every command pays),
  `python -c "import duckdb"` (a process that only loads the database library) and numpy alone
  resampling the same 10 × 300 values 1,000 times.
Prints one JSON object with each time's ratio to the budget and to the anchors; `work_seconds` is
the command's time beyond `studio list`'s (what `studio answers` itself adds to a command's start).
Usage: python -m benchmarks.bench_answers
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from studio import Project

SYSTEMS, TOPICS, BUDGET = 10, 300, 1.0
STUDIO = [sys.executable, "-m", "studio"]


def write_verdicts(folder: Path, rng: random.Random) -> dict[str, dict[str, Path]]:
    """One file per system and layout, in the release's layouts."""
    files: dict[str, dict[str, Path]] = {}
    qids = [str(100000 + t) for t in range(TOPICS)]
    for s in range(SYSTEMS):
        system = f"system-{s:02d}"
        lines = {
            "graded": [f"{q}\t0\t{rng.randint(0, 3)}" for q in qids],
            "binary": [f"{q}\t0\t{rng.choice(['Yes', 'No', 'no'])}" for q in qids],
            "subtopics": [
                f"{q}\t" + "\t".join(f"{i}\t{rng.choice(['Yes', 'No'])}" for i in range(rng.randint(4, 8)))
                for q in qids
            ],
            "preferences": [
                f"{q}\treg\tqrel\td{q}\tgen\t{system}\t{rng.choice('ab')}\n{q}\trev\tgen\t{system}\tqrel\td{q}\t{rng.choice('ab')}"
                for q in qids
            ],
        }
        for layout, rows in lines.items():
            path = folder / f"{layout}-{system}.txt"
            path.write_text("\n".join(rows) + "\n")
            files.setdefault(layout, {})[system] = path
    return files


def import_verdicts(project: Project, files: dict[str, dict[str, Path]], layouts: Iterable[str]) -> None:
    """Each layout's verdict files into the label set of its name, one system a file."""
    for layout in layouts:
        for system, path in files[layout].items():
            project.import_answer_labels(path, system=system, method=layout, name=layout)


def timed(command: list[str], runs: int = 5) -> list[float]:
    found = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        found.append(time.perf_counter() - start)
    return found


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        db = folder / "answers.duckdb"
        files = write_verdicts(folder, random.Random(7))
        with Project.open(db) as project:
            import_verdicts(project, files, files)
        one = timed([*STUDIO, "--db", str(db), "answers", "--labels", "graded", "-f", "json"])
        rows = json.loads(
            subprocess.run(
                [*STUDIO, "--db", str(db), "answers", "--labels", "graded", "-f", "json"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        )
        four = [f for layout in files for f in ("--labels", layout)]
        all_four = timed([*STUDIO, "--db", str(db), "answers", *four, "-f", "json"])
        anchor = timed([sys.executable, "-c", "import duckdb"])
        listing = timed([*STUDIO, "--db", str(db), "list", "qrels"])
        with Project.open(db) as project:
            in_process = []
            for _ in range(5):
                start = time.perf_counter()
                project.answer_scores(["graded"])
                in_process.append(time.perf_counter() - start)
    values = np.random.default_rng(0).random((SYSTEMS, TOPICS))
    start = time.perf_counter()
    for row in values:
        means = row[np.random.default_rng(0).integers(0, TOPICS, size=(1000, TOPICS))].mean(axis=1)
        np.percentile(means, [2.5, 97.5])
    numpy_only = time.perf_counter() - start
    median = statistics.median(one)
    work = median - statistics.median(listing)
    report = {
        "benchmark": "answers",
        "systems": SYSTEMS,
        "topics": TOPICS,
        "rows": len(rows),
        "budget_seconds": BUDGET,
        "cli": {"median_seconds": round(median, 3), "max_seconds": round(max(one), 3)},
        "anchor_studio_list_seconds": round(statistics.median(listing), 3),
        "work_seconds": round(work, 3),
        "work_ratio_to_budget": round(work / BUDGET, 3),
        "cli_ratio_to_budget": round(median / BUDGET, 3),
        "within_budget": work <= BUDGET and statistics.median(in_process) <= BUDGET,
        "cli_four_methods": {"median_seconds": round(statistics.median(all_four), 3), "rows": 4 * SYSTEMS},
        "in_process_seconds": round(statistics.median(in_process), 4),
        "anchor_import_duckdb_seconds": round(statistics.median(anchor), 3),
        "cli_ratio_to_import_duckdb": round(median / statistics.median(anchor), 2),
        "anchor_numpy_bootstrap_seconds": round(numpy_only, 4),
        "in_process_ratio_to_numpy_bootstrap": round(statistics.median(in_process) / numpy_only, 2),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
