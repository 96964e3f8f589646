"""The studio at TREC-RAG size and beyond (docs/design.md#6-performance-budgets: 9 M and 50 M run
rows open and evaluate on this laptop, ≤ 4 GB peak at 50 M; on the 9 M project the TUI starts in ≤ 2 s and a Review
keypress repaints in ≤ 100 ms p95).

Two synthetic projects (fixed seeds, generated once under benchmarks/.data/):
* `rag`: 300 topics × 300 runs × 100 ranked documents (9 M rows), ~67 human judgments per topic
  (a TREC RAG 2024-sized pool) and an LLM-like copy with a third of the grades redrawn;
* `large`: 500 topics × 100 runs × 1000 (50 M rows), 300 judgments per topic.
Each phase runs in a fresh process, which reports its own peak resident memory (VmHWM):
* `import`: the qrels, then the runs, 10 files per `studio import run` command;
* `cold`: open the project file and compute the five-measure leaderboard;
* `edit`: 100 audited edits, each followed by the updated nDCG@10 leaderboard and Kendall τ;
* `tui` (rag only): start-up to the first painted Overview, the Review queue's build, and the
  key-to-paint latency of 100 Review decisions (`benchmarks.bench_tui`'s measures).
Prints one JSON object. Usage: python -m benchmarks.bench_scale [--only rag|large] [--skip-import]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.workload import Workload, generate, noisy_qrels

DATA = Path(__file__).parent / ".data"
MEASURES = ["nDCG@10", "AP", "P@10", "RR", "R@100"]
SIZES = {
    "rag": {"topics": 300, "runs": 300, "depth": 100, "judged_per_topic": 67, "corpus_per_topic": 10_000},
    "large": {"topics": 500, "runs": 100, "depth": 1000, "judged_per_topic": 300, "corpus_per_topic": 20_000},
}
FILES_PER_IMPORT = 10
EDITS = 100


def peak_rss_mb() -> float:
    """This process's peak resident memory (VmHWM), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def workload_for(size: str) -> Workload:
    return generate(DATA / size, **SIZES[size])


# -- phases (each in its own process) -------------------------------------------------------------


def phase_import(size: str, path: Path) -> dict[str, Any]:
    from studio import Project

    workload = workload_for(size)
    path.unlink(missing_ok=True)
    start = time.perf_counter()
    with Project.open(path) as project:
        project.import_qrels(workload.qrels, name="human")
        project.import_qrels(noisy_qrels(workload, DATA / size), name="llm", kind="llm")
        for first in range(0, len(workload.runs), FILES_PER_IMPORT):
            project.import_runs(workload.runs[first : first + FILES_PER_IMPORT])
        rows = project.counts()["run_rows"]
    return {
        "seconds": round(time.perf_counter() - start, 2),
        "run_rows": rows,
        "megabytes_on_disk": round(path.stat().st_size / 1e6, 1),
    }


def phase_cold(path: Path) -> dict[str, Any]:
    from studio import Project

    start = time.perf_counter()
    with Project.open(path) as project:
        for measure in MEASURES:
            project.leaderboard("human", measure)
    return {"seconds": round(time.perf_counter() - start, 3)}


def phase_edit(path: Path) -> dict[str, Any]:
    from studio import Project
    from studio.metrics.correlation import kendall_tau_b

    rng = random.Random(0)
    latencies = []
    with Project.open(path) as project:
        reference = np.array(list(project.leaderboard("human", "nDCG@10").values()))
        labels = project.engine.evaluator("human").labels
        pairs = [(qid, docid) for qid in sorted(labels) for docid in sorted(labels[qid].judged)]
        for qid, docid in rng.sample(pairs, EDITS):
            start = time.perf_counter()
            project.set_label("human", qid, docid, float(rng.randint(0, 3)), person="benchmark")
            audited = np.array(list(project.leaderboard("human", "nDCG@10").values()))
            kendall_tau_b(reference, audited)
            latencies.append(time.perf_counter() - start)
        while project.undo("human") is not None:  # leave the project as it was
            pass
    ms = sorted(t * 1000 for t in latencies)
    return {
        "edits": len(ms),
        "p50_ms": round(statistics.median(ms), 2),
        "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 2),
    }


async def _first_overview(path: Path) -> float:
    start = time.perf_counter()
    from studio.services.project import Project
    from studio.tui.app import StudioApp

    with Project.open(path) as project:
        app = StudioApp(project)
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            started = time.perf_counter() - start
            await app.workers.wait_for_complete()  # the Overview's loads end before the file closes
            return started


def phase_tui(path: Path) -> dict[str, Any]:
    from benchmarks.bench_tui import percentiles, review_decisions

    started = asyncio.run(_first_overview(path))
    queue_start = time.perf_counter()
    latencies, ready = asyncio.run(review_decisions(path))
    return {
        "start_to_first_paint_seconds": round(started, 3),
        "budget_start_seconds": 2.0,
        "review_queue_ready_seconds": round(ready, 2),
        "review_phase_seconds": round(time.perf_counter() - queue_start, 2),
        "keypress": percentiles(latencies),
        "budget_keypress_p95_ms": 100,
    }


PHASES: dict[str, Callable[[Path], dict[str, Any]]] = {"cold": phase_cold, "edit": phase_edit, "tui": phase_tui}


def run_phase(phase: str, size: str, path: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_scale", "--phase", phase, "--size", size, "--project", str(path)],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"phase {phase} of {size} failed:\n{done.stderr}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", choices=sorted(SIZES))
    parser.add_argument("--phase", choices=["import", *sorted(PHASES)])
    parser.add_argument("--size", choices=sorted(SIZES))
    parser.add_argument("--project", type=Path)
    parser.add_argument("--skip-import", action="store_true", help="re-use a project imported before")
    args = parser.parse_args()
    if args.phase:  # a child process: one phase, one JSON line
        result = phase_import(args.size, args.project) if args.phase == "import" else PHASES[args.phase](args.project)
        print(json.dumps({**result, "peak_rss_mb": peak_rss_mb()}))
        return
    figures: dict[str, Any] = {"benchmark": "scale", "budget_peak_rss_mb_at_50M": 4096}
    for size in [args.only] if args.only else list(SIZES):
        started = time.perf_counter()
        workload = workload_for(size)
        noisy_qrels(workload, DATA / size)
        shape = SIZES[size]
        figures[size] = {
            "shape": shape,
            "rows": shape["topics"] * shape["runs"] * shape["depth"],
            "generate_seconds": round(time.perf_counter() - started, 1),
        }
        path = DATA / size / "project.duckdb"
        phases = ["import", "cold", "edit", *(["tui"] if size == "rag" else [])]
        if args.skip_import and path.exists():
            phases.remove("import")
        for phase in phases:
            figures[size][phase] = run_phase(phase, size, path)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
