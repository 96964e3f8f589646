"""`studio audit simulate` on a collection the size of TREC's: 63 runs × 53 topics.

Prints one JSON object (budget in docs/design.md#6-performance-budgets: 1,000 trials of a 1,000-pair
nDCG@10 audit on 63 runs × 53 topics ≤ 10 s; a 20-topic audit ≤ 3 s). The collection is synthetic
(fixed seed): each run ranks 100 of a topic's candidate documents by a noisy view of their grade
(stronger runs with less noise); the pool is the union of every run's top 10 (about 10,000 pairs),
graded 0–3 by people (`human`), and an LLM label set (`llm`) gives the people's grade to about 70%
of the pairs and a neighbouring one to the rest. `pilot` (PILOT_PAIRS of the people's grades drawn
at random) gives the adaptive designs their calibration residuals.

Each figure is the seconds of one `Project.simulate_audit` call on a freshly opened project, as
`studio audit simulate` makes it (the leaderboards' evaluation included), the median of `--repeat`:
wall clock (`DESIGN_s`, what the budgets are of) and the process's CPU time (`DESIGN_cpu_s`). The
adaptive designs' figures include the uniform design they are set beside.

Usage: python -m benchmarks.bench_simulation [--trials 1000] [--pair-budget 1000] [--topic-budget 20]
    [--repeat 1] [--adaptive] [--designs pairs,topics] [--folder DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from studio.domain.specs import AuditSimulationSpec
from studio.services.project import Project

RUNS, TOPICS, CANDIDATES, DEPTH, POOL_DEPTH = 63, 53, 400, 100, 10
GRADE_SHARES = (0.45, 0.25, 0.18, 0.12)  # of the candidates, at grades 0..3
AGREEMENT = 0.70  # the LLM's share of pairs graded as people graded them
PILOT_PAIRS = 300
SEED = 63
PAIRS_BUDGET_S, TOPICS_BUDGET_S = 10.0, 3.0  # docs/design.md#6-performance-budgets and the audit simulation's targets
PROJECT = "simulation.duckdb"


@dataclass(frozen=True)
class Collection:
    """The synthetic collection's pool and label sets, as written to disk."""

    pairs: int
    agreement: float


def write_collection(folder: Path, seed: int = SEED) -> Collection:
    """Run files, the people's qrels of the depth-10 pool, the LLM's and a pilot's, under `folder`."""
    rng = np.random.default_rng(seed)
    grades = rng.choice(4, size=(TOPICS, CANDIDATES), p=GRADE_SHARES)
    difficulty = rng.uniform(0.3, 1.5, TOPICS)
    pool: dict[int, set[int]] = {t: set() for t in range(TOPICS)}
    for r in range(RUNS):
        skill = 0.2 + 1.6 * r / (RUNS - 1)
        lines: list[str] = []
        for t in range(TOPICS):
            docs = rng.choice(CANDIDATES, size=DEPTH, replace=False)
            signal = grades[t, docs] * skill * difficulty[t] + rng.normal(0.0, 1.0, DEPTH)
            top = docs[np.argsort(-signal, kind="stable")]
            pool[t].update(int(d) for d in top[:POOL_DEPTH])
            lines.extend(
                f"{1000 + t} Q0 d{t}-{d} {rank} {DEPTH - rank}.0 run{r:02d}\n" for rank, d in enumerate(top, start=1)
            )
        (folder / f"run{r:02d}.txt").write_text("".join(lines))
    judged = [(t, d, int(grades[t, d])) for t in range(TOPICS) for d in sorted(pool[t])]
    (folder / "human.txt").write_text("".join(f"{1000 + t} 0 d{t}-{d} {g}\n" for t, d, g in judged))
    llm = [g if rng.random() < AGREEMENT else _neighbour(g, rng) for _, _, g in judged]
    (folder / "llm.txt").write_text(
        "".join(f"{1000 + t} 0 d{t}-{d} {g}\n" for (t, d, _), g in zip(judged, llm, strict=True))
    )
    chosen = sorted(rng.choice(len(judged), PILOT_PAIRS, replace=False))
    (folder / "pilot.txt").write_text(
        "".join(f"{1000 + t} 0 d{t}-{d} {g}\n" for t, d, g in (judged[i] for i in chosen))
    )
    same = sum(g == h for (_, _, g), h in zip(judged, llm, strict=True))
    return Collection(len(judged), same / len(judged))


def _neighbour(grade: int, rng: np.random.Generator) -> int:
    """A grade one step away (the LLM's typical error), within 0..3."""
    steps = [g for g in (grade - 1, grade + 1) if 0 <= g <= 3]
    return int(rng.choice(steps))


def build_project(folder: Path) -> tuple[Path, Collection]:
    collection = write_collection(folder)
    path = folder / PROJECT
    if path.exists():  # built by an earlier run on the same folder (the files are the same)
        return path, collection
    with Project.open(path) as project:
        project.import_runs(sorted(folder.glob("run*.txt")))
        project.import_qrels(folder / "human.txt", name="human")
        project.import_qrels(folder / "llm.txt", name="llm", kind="llm")
        project.import_qrels(folder / "pilot.txt", name="pilot")
    return path, collection


def timed_simulation(
    path: Path, repeat: int, design: str, budget: int, trials: int, pilot: str | None
) -> tuple[float, float]:
    """Median seconds of one simulation on a freshly opened project: wall clock, and the process's
    CPU time (what a machine shared with other work still measures fairly)."""
    wall, cpu = [], []
    for _ in range(repeat):
        with Project.open(path) as project:
            start, start_cpu = time.perf_counter(), time.process_time()
            project.simulate_audit(
                AuditSimulationSpec(
                    "human", "llm", budget=budget, design=design, trials=trials, measure="nDCG@10", seed=0, pilot=pilot
                )
            )
            wall.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--pair-budget", type=int, default=1000)
    parser.add_argument("--topic-budget", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--adaptive", action="store_true", help="Also time pairs-uncertainty and topics-neyman.")
    parser.add_argument("--designs", help="Only these designs, comma-separated (e.g. topics,topics-neyman).")
    parser.add_argument("--folder", type=Path, help="Where the collection is written (default: a temporary one).")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.folder or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        path, collection = build_project(folder)
        result: dict[str, object] = {
            "runs": RUNS,
            "topics": TOPICS,
            "pool_pairs": collection.pairs,
            "llm_agreement": round(collection.agreement, 3),
            "trials": args.trials,
            "pair_budget": args.pair_budget,
            "topic_budget": args.topic_budget,
        }
        cells: list[tuple[str, int, str | None]] = [
            ("pairs", args.pair_budget, None),
            ("topics", args.topic_budget, None),
        ]
        if args.adaptive:
            cells += [("pairs-uncertainty", args.pair_budget, "pilot"), ("topics-neyman", args.topic_budget, "pilot")]
        if args.designs:
            cells = [cell for cell in cells if cell[0] in args.designs.split(",")]
        for design, budget, pilot in cells:
            seconds, cpu = timed_simulation(path, args.repeat, design, budget, args.trials, pilot)
            result[f"{design.replace('-', '_')}_s"] = round(seconds, 3)
            result[f"{design.replace('-', '_')}_cpu_s"] = round(cpu, 3)
        result["pairs_budget_s"] = PAIRS_BUDGET_S
        result["topics_budget_s"] = TOPICS_BUDGET_S
        for design, budget_s in (("pairs", PAIRS_BUDGET_S), ("topics", TOPICS_BUDGET_S)):
            if f"{design}_s" in result:
                result[f"{design}_within_budget"] = result[f"{design}_s"] <= budget_s  # type: ignore[operator]
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
