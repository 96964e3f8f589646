"""The DL-scale synthetic workload of docs/design.md#6-performance-budgets, generated with a fixed seed.

100 runs x 50 topics x 1000 ranked docs and qrels of ~300 graded judgments per topic.
Runs are of graded quality: each run scores documents by a noisy view of their grade,
so leaderboards are neither random nor identical.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SEED = 20241
GRADE_WEIGHTS = (0.55, 0.25, 0.13, 0.07)  # share of judged docs at grades 0..3


@dataclass(frozen=True)
class Workload:
    """Where a generated workload lies on disk."""

    qrels: Path
    runs: list[Path]


def generate(
    folder: Path,
    runs: int = 100,
    topics: int = 50,
    depth: int = 1000,
    judged_per_topic: int = 300,
    corpus_per_topic: int = 5000,
    seed: int = SEED,
) -> Workload:
    """Write qrels and run files under `folder` (re-using them when already there)."""
    folder.mkdir(parents=True, exist_ok=True)
    qrels_path = folder / "qrels.txt"
    run_paths = [folder / f"run{r:03d}.txt" for r in range(runs)]
    if qrels_path.exists() and all(p.exists() for p in run_paths):
        return Workload(qrels_path, run_paths)

    rng = np.random.default_rng(seed)
    qids = [str(1000 + t * 7) for t in range(topics)]
    # Every topic draws from its own pool of candidate docids; the judged ones get grades.
    pools = [rng.choice(8_000_000, size=corpus_per_topic, replace=False) for _ in qids]
    grades = [np.zeros(corpus_per_topic) for _ in qids]
    qrels_lines: list[str] = []
    for t, qid in enumerate(qids):
        judged = rng.choice(corpus_per_topic, size=judged_per_topic, replace=False)
        g = rng.choice(4, size=judged_per_topic, p=GRADE_WEIGHTS)
        grades[t][judged] = g
        qrels_lines.extend(f"{qid} 0 {pools[t][j]} {int(gr)}\n" for j, gr in zip(judged, g, strict=True))
    qrels_path.write_text("".join(qrels_lines))

    for r, path in enumerate(run_paths):
        skill = r / max(runs - 1, 1)  # 0 = random run, 1 = strong run
        lines: list[str] = []
        for t, qid in enumerate(qids):
            noise = rng.normal(0.0, 1.0, corpus_per_topic)
            signal = grades[t] * (0.2 + 2.0 * skill) + noise
            top = np.argsort(-signal, kind="stable")[:depth]
            # Rounded scores make score ties, which exercise trec_eval's docid tie-break.
            scores = np.round(signal[top], 2)
            lines.extend(
                f"{qid} Q0 {pools[t][d]} {rank} {score:.2f} run{r:03d}\n"
                for rank, (d, score) in enumerate(zip(top, scores, strict=True), start=1)
            )
        path.write_text("".join(lines))
    return Workload(qrels_path, run_paths)


def with_separator(workload: Workload, folder: Path, separator: str) -> Workload:
    """The same runs with `separator` between their columns (NIST distributes runs tab-separated),
    written under `folder` (re-used when already there); the qrels are shared."""
    folder.mkdir(parents=True, exist_ok=True)
    run_paths = [folder / path.name for path in workload.runs]
    for source, target in zip(workload.runs, run_paths, strict=True):
        if not target.exists():
            text = source.read_text(encoding="utf-8")
            partial = target.with_suffix(".partial")
            partial.write_text(text.replace(" ", separator), encoding="utf-8")
            partial.replace(target)
    return Workload(workload.qrels, run_paths)


def noisy_qrels(workload: Workload, folder: Path, share: float = 1 / 3, seed: int = 1) -> Path:
    """The qrels with `share` of the grades redrawn (seeded): a second label set to compare with,
    written under `folder` (re-used when already there)."""
    path = folder / "qrels-noisy.txt"
    if not path.exists():
        rng = np.random.default_rng(seed)
        lines = workload.qrels.read_text().splitlines()
        redraw = rng.random(len(lines)) < share
        grades = rng.integers(0, 4, len(lines))
        out = []
        for line, change, grade in zip(lines, redraw.tolist(), grades.tolist(), strict=True):
            qid, iteration, docid, old = line.split()
            out.append(f"{qid} {iteration} {docid} {grade if change else old}\n")
        partial = path.with_suffix(".partial")
        partial.write_text("".join(out))
        partial.replace(path)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--runs", type=int, default=100)
    args = parser.parse_args()
    workload = generate(args.folder, runs=args.runs)
    print(f"{len(workload.runs)} runs and qrels in {args.folder}")


if __name__ == "__main__":
    main()
