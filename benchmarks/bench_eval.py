"""Leaderboards and live edits on the DL-scale workload, against trec_eval (pytrec_eval), ir_measures and ranx.

Prints one JSON object with, for the full leaderboard of nDCG@10, AP, P@10, RR and R@100 over
100 runs x 50 topics x 1000 docs (budgets in docs/design.md#6-performance-budgets: cold ≤ 0.2×
pytrec_eval, edit p95 ≤ 3 ms, detailed correlation ≤ 100 ms):
* studio_cold: a freshly opened project file to leaderboard (reads the rankings from DuckDB);
* studio_warm: rankings in memory (a project already open), the five measures from scratch;
* pytrec_eval: RelevanceEvaluator.evaluate on dicts built beforehand (the C code alone), and
  pytrec_eval_with_parsing including reading the same run files into its dicts;
* ir_measures and ranx on the same dicts;
and the p50/p95 latency of one audited edit: set_label + updated leaderboard + Kendall τ;
* live_edit_ms: the same live path as the TUI and the Python API take it, `Project.set_label` on
  the audited label set then `Project.correlation(ref, qrels, "nDCG@10", details=False)`;
* duckdb_commit_ms: beside it, DuckDB's own floor on the same file: a one-row insert into a
  scratch table in a transaction of its own, and the COMMIT of that transaction alone.
* live_p95_ratios: the live edit's p95 over each floor's p95 (budget: 2× the one-row one).
Usage: python -m benchmarks.bench_eval [--edits 300] [--live-only]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np

from benchmarks.workload import Workload, generate, noisy_qrels
from studio import Project
from studio.metrics.correlation import kendall_tau_b

MEASURES = ["nDCG@10", "AP", "P@10", "RR", "R@100"]
TREC_EVAL = {"ndcg_cut_10", "map", "P_10", "recip_rank", "recall_100"}
RANX = ["ndcg@10", "map", "precision@10", "mrr", "recall@100"]


def timed(action: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def read_dicts(workload: Workload) -> tuple[dict[str, dict[str, int]], list[dict[str, dict[str, float]]]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in workload.qrels.read_text().splitlines():
        qid, _, docid, grade = line.split()
        qrels.setdefault(qid, {})[docid] = int(grade)
    runs = []
    for path in workload.runs:
        run: dict[str, dict[str, float]] = {}
        for line in path.read_text().splitlines():
            qid, _, docid, _, score, _ = line.split()
            run.setdefault(qid, {})[docid] = float(score)
        runs.append(run)
    return qrels, runs


def project_for(workload: Workload, folder: Path) -> Path:
    path = folder / "dl-project.duckdb"
    if not path.exists():
        partial = folder / "dl-project.partial.duckdb"
        partial.unlink(missing_ok=True)
        with Project.open(partial) as project:
            project.import_runs(workload.runs)
            project.import_qrels(workload.qrels, name="human")
            project.import_qrels(noisy_qrels(workload, folder), name="noisy", kind="llm")
        partial.rename(path)
    return path


def correlation_details(path: Path) -> float:
    """`Project.correlation` with its 1,000-resample bootstrap and topic subsampling, warm."""
    with Project.open(path) as project:
        project.correlation("human", "noisy", "nDCG@10")
        return timed(lambda: project.correlation("human", "noisy", "nDCG@10"), repeat=5)


def studio_cold(path: Path) -> None:
    with Project.open(path) as project:
        for measure in MEASURES:
            project.leaderboard("human", measure)


def edit_latencies(path: Path, edits: int, seed: int = 0) -> list[float]:
    """Audited edits on a scratch copy of the label set, each followed by leaderboard + τ."""
    rng = random.Random(seed)
    with Project.open(path) as project:
        reference = np.array(list(project.leaderboard("human", "nDCG@10").values()))
        evaluator = project.engine.evaluator("human")
        latencies = []
        for _ in range(edits):
            qid = rng.choice(evaluator.qids)
            docid = rng.choice(evaluator.rankings.topics[qid].docids[:2000])
            start = time.perf_counter()
            project.set_label("human", qid, docid, float(rng.randint(0, 3)), person="benchmark")
            audited = np.array(list(project.leaderboard("human", "nDCG@10").values()))
            kendall_tau_b(reference, audited)
            latencies.append(time.perf_counter() - start)
        while project.undo("human") is not None:  # leave the benchmark project as it was
            pass
    return latencies


def live_edit_latencies(path: Path, edits: int, seed: int = 0) -> list[float]:
    """Audited edits of the LLM label set through the public API, each followed by the correlation
    of its leaderboard with the human one as the live view asks for it (no intervals)."""
    rng = random.Random(seed)
    with Project.open(path) as project:
        project.correlation("human", "noisy", "nDCG@10", details=False)  # both label sets in memory
        evaluator = project.engine.evaluator("noisy")
        latencies = []
        for _ in range(edits):
            qid = rng.choice(evaluator.qids)
            docid = rng.choice(evaluator.rankings.topics[qid].docids[:2000])
            grade = float(rng.randint(0, 3))
            start = time.perf_counter()
            project.set_label("noisy", qid, docid, grade, person="benchmark")
            project.correlation("human", "noisy", "nDCG@10", details=False)
            latencies.append(time.perf_counter() - start)
        while project.undo("noisy") is not None:  # leave the benchmark project as it was
            pass
    return latencies


SCRATCH_TABLE = "bench_commit_floor"
# A scratch table shaped like label_events (its columns, types and default), without its key: what
# appending one edit's row costs the database, beside the one-integer row of the budget.
EVENT_SHAPED = (
    "(event_id BIGINT, label_set_id INTEGER, qid VARCHAR, docid VARCHAR, grade DOUBLE, previous DOUBLE, "
    "origin VARCHAR, source VARCHAR, note VARCHAR, undoes BIGINT, batch_id BIGINT, "
    "created_at TIMESTAMP DEFAULT current_timestamp)"
)


class CommitFloor(NamedTuple):
    """DuckDB's own cost of a durable write on the project file, one sample per transaction."""

    one_row: list[float]  # BEGIN; a one-integer-row INSERT; COMMIT
    commit: list[float]  # that COMMIT alone
    event_row: list[float]  # BEGIN; one row shaped like a label event; COMMIT


def commit_latencies(path: Path, transactions: int) -> CommitFloor:
    """The floors, interleaved transaction by transaction so that both see the same machine."""
    with Project.open(path) as project:
        con = project.db.cursor()
        con.execute(f"CREATE OR REPLACE TABLE {SCRATCH_TABLE} (i INTEGER)")
        con.execute(f"CREATE OR REPLACE TABLE {SCRATCH_TABLE}_events {EVENT_SHAPED}")
        floor = CommitFloor([], [], [])
        for i in range(transactions):
            start = time.perf_counter()
            con.execute("BEGIN TRANSACTION")
            con.execute(f"INSERT INTO {SCRATCH_TABLE} VALUES (?)", [i])
            committing = time.perf_counter()
            con.execute("COMMIT")
            end = time.perf_counter()
            floor.one_row.append(end - start)
            floor.commit.append(end - committing)
            start = time.perf_counter()
            con.execute("BEGIN TRANSACTION")
            con.execute(
                f"INSERT INTO {SCRATCH_TABLE}_events (event_id, label_set_id, qid, docid, grade, previous, origin, "
                "source, batch_id) VALUES (?, 1, ?, ?, 1.0, 0.0, 'person', 'benchmark', 1)",
                [i, f"q{i % 50}", f"d{i}"],
            )
            con.execute("COMMIT")
            floor.event_row.append(time.perf_counter() - start)
        con.execute(f"DROP TABLE {SCRATCH_TABLE}")
        con.execute(f"DROP TABLE {SCRATCH_TABLE}_events")
    return floor


def live_path_figures(path: Path, edits: int) -> dict[str, object]:
    """The live edit beside DuckDB's floors, measured one after the other in this run."""
    live = live_edit_latencies(path, edits)
    floor = commit_latencies(path, edits)
    live_p95 = float(np.percentile(live, 95))
    return {
        "live_edit_ms": {
            "edits": len(live),
            **spread_ms(live),
            "budget_p95": 3.0,
            "what": 'Project.set_label("noisy", …) then Project.correlation("human", "noisy", '
            '"nDCG@10", details=False)',
        },
        "duckdb_commit_ms": {
            "transactions": len(floor.one_row),
            "insert_transaction": spread_ms(floor.one_row),
            "commit": spread_ms(floor.commit),
            "event_row_transaction": spread_ms(floor.event_row),
            "what": "BEGIN; one-row INSERT into a scratch table; COMMIT on the same project file, "
            "and the COMMIT alone: the database's floor under every edit; and the same with one row "
            "shaped like a label event",
        },
        "live_p95_ratios": {
            "to_one_row_transaction": round(live_p95 / float(np.percentile(floor.one_row, 95)), 2),
            "to_event_row_transaction": round(live_p95 / float(np.percentile(floor.event_row, 95)), 2),
            "budget_to_one_row": 2.0,
        },
    }


def spread_ms(latencies: list[float]) -> dict[str, float]:
    """p50, p95 and max of latencies in seconds, as milliseconds."""
    ms = [t * 1000 for t in latencies]
    return {
        "p50": round(float(np.percentile(ms, 50)), 2),
        "p95": round(float(np.percentile(ms, 95)), 2),
        "max": round(max(ms), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--edits", type=int, default=300)
    parser.add_argument("--data", type=Path, default=Path(__file__).parent / ".data" / "dl")
    parser.add_argument("--live-only", action="store_true", help="only the live edit and DuckDB's floors")
    args = parser.parse_args()
    workload = generate(args.data)
    path = project_for(workload, args.data)
    if args.live_only:
        print(json.dumps({"benchmark": "live edits, DL-scale", **live_path_figures(path, args.edits)}, indent=2))
        return
    # The studio's live path first, in a process that holds the studio's state alone: the oracles'
    # dicts below are millions of Python objects, which every collection of the oldest generation
    # walks, in the middle of whichever edit it falls on (a TUI holds none of them).
    details = correlation_details(path)
    latencies = edit_latencies(path, args.edits)
    ms = [t * 1000 for t in latencies]
    live = live_path_figures(path, args.edits)
    qrels, runs = read_dicts(workload)

    import ir_measures
    import pytrec_eval
    import ranx

    cold = timed(lambda: studio_cold(path))
    project = Project.open(path)
    project.leaderboard("human", "nDCG@10")  # rankings in memory: the state of an open project

    def warm() -> None:
        project.engine.forget_labels("human")
        for measure in MEASURES:
            project.leaderboard("human", measure)

    warm_time = timed(warm)
    project.close()

    evaluator = pytrec_eval.RelevanceEvaluator(qrels, TREC_EVAL)
    trec = timed(lambda: [evaluator.evaluate(run) for run in runs])

    def trec_with_parsing() -> None:
        _, parsed = read_dicts(workload)
        fresh = pytrec_eval.RelevanceEvaluator(qrels, TREC_EVAL)
        for run in parsed:
            fresh.evaluate(run)

    trec_parsing = timed(trec_with_parsing, repeat=1)
    ir_names = [ir_measures.parse_measure(m) for m in MEASURES]
    irm = timed(lambda: [ir_measures.calc_aggregate(ir_names, qrels, run) for run in runs], repeat=1)
    ranx_qrels = ranx.Qrels(qrels)
    ranx_runs = [ranx.Run(run) for run in runs]
    ranx.evaluate(ranx_qrels, ranx_runs[0], RANX)  # numba compiles on the first call
    rx = timed(lambda: [ranx.evaluate(ranx_qrels, run, RANX) for run in ranx_runs], repeat=1)

    print(
        json.dumps(
            {
                "benchmark": "full leaderboard (nDCG@10, AP, P@10, RR, R@100) and live edits, DL-scale",
                "runs": len(runs),
                "topics": len(qrels),
                "depth": 1000,
                "seconds": {
                    "studio_cold": round(cold, 3),
                    "studio_warm": round(warm_time, 3),
                    "pytrec_eval": round(trec, 3),
                    "pytrec_eval_with_parsing": round(trec_parsing, 3),
                    "ir_measures": round(irm, 3),
                    "ranx": round(rx, 3),
                },
                "ratios": {
                    "pytrec_eval_over_studio_warm": round(trec / warm_time, 1),
                    "pytrec_eval_with_parsing_over_studio_cold": round(trec_parsing / cold, 2),
                    "pytrec_eval_over_studio_cold": round(trec / cold, 2),
                    "studio_cold_over_pytrec_eval": round(cold / trec, 3),
                    "ir_measures_over_studio_warm": round(irm / warm_time, 1),
                    "ranx_over_studio_warm": round(rx / warm_time, 1),
                },
                "edit_to_tau_ms": {
                    "edits": len(ms),
                    "p50": round(float(np.percentile(ms, 50)), 2),
                    "p95": round(float(np.percentile(ms, 95)), 2),
                    "max": round(max(ms), 2),
                    "budget_p95": 3.0,
                },
                **live,
                "correlation_details_ms": {
                    "median": round(details * 1000, 1),
                    "budget": 100.0,
                    "what": "τ-b, τ-a, ρ, τ_AP, RBO, swaps, per-topic and pooled τ, 1,000-resample "
                    "bootstrap and topic subsampling of two label sets",
                },
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
