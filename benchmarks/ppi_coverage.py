"""Coverage and width of prediction-powered leaderboard estimates on TREC DL 2019 and 2020.

The human qrels are NIST's (real); the runs are synthetic (graded quality, fixed seed) over
each topic's judged passages plus unjudged ones. The LLM label sets are GPT-4's published
UMBRELA grades of the same pairs (tests/published/umbrela-gpt4/, a real LLM's labels) and noisy
copies of the qrels of a chosen Cohen's κ (each label kept with probability κ, else drawn from
the qrels' own grade distribution, as `studio judge --backend simulated` does). For each budget,
design and judge, `studio audit simulate` draws audits and reports how often the 95% intervals
covered the full-human value and how wide they were against gold-only intervals of the same
budget.

Binary judges are imitated too: GPT-4's grades cut at TREC DL's level 2 (`umbrela-gpt4-binary`:
1 where GPT-4 gave 2 or 3, the answer of a binary prompt that asks "highly relevant?") and a
noisy binary copy of the qrels cut at 2 with κ 0.5 (`llm-binary-k0.5`): 0/1 labels against
people's 0–3 grades, the case where pair audits of nDCG@10 were seen to under-cover on a real
collection (63 runs, 53 topics).

The designs whose π an LLM-only signal sets (`topics-neyman`, `pairs-uncertainty`) are run with
GPT-4's labels, set beside the uniform design of the same unit, budget and seed. GPT-4's published
labels are grades without distributions, so `pairs-uncertainty` takes its predicted errors from a
calibration residual: the root mean squared gold − LLM per LLM grade on a pilot of PILOT_PAIRS
pairs of the human qrels drawn at random (label set `pilot`), which also gives `topics-neyman`
its strata's spreads.

    python -m benchmarks.ppi_coverage [--trials 1000] [--folder DIR] [--cells uniform|adaptive|all]
                                      [--data DIR] [--collections dl19,dl20]

prints JSON (one object per cell) and then the markdown tables of docs/statistics.md
("Estimates from a partial audit"), to paste there.
"""

from __future__ import annotations

import argparse
import gzip
import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from studio.domain.specs import AgreementSpec, AuditSimulationSpec
from studio.services.project import Project

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec-dl"
COLLECTIONS = {"dl19": DATA / "qrels.dl19-passage.txt", "dl20": DATA / "qrels.dl20-passage.txt"}
PUBLISHED = Path(__file__).resolve().parents[1] / "tests" / "published" / "umbrela-gpt4"
GPT4 = "umbrela-gpt4"  # the label set of GPT-4's published UMBRELA grades
SEED = 14
RUNS = 12
DEPTH = 100
UNJUDGED_PER_TOPIC = 100
KAPPAS = (0.0, 0.3, 0.5, 0.8)
INVERTED = "llm-inverted"  # a bad judge: every grade turned upside down (3 − g)
BINARY_GPT4 = "umbrela-gpt4-binary"  # GPT-4's grades cut at 2: a binary judge's 0/1
BINARY_NOISY = "llm-binary-k0.5"  # the qrels cut at 2, each label kept with probability 0.5
BINARY_LEVEL = 2
# (design, measure, budgets): whole topics for nDCG@10; judged pairs for P@10 at TREC DL's level 2
# and for nDCG@10 (the linearised ratio estimator).
CELLS = (("topics", "nDCG@10", (20,)), ("pairs", "P(rel=2)@10", (1000,)), ("pairs", "nDCG@10", (1000,)))
ADAPTIVE_CELLS = (
    ("topics-neyman", "nDCG@10", (20,)),
    ("pairs-uncertainty", "P(rel=2)@10", (1000,)),
    ("pairs-uncertainty", "nDCG@10", (1000,)),
)
PILOT = "pilot"
PILOT_PAIRS = 300


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in path.read_text().splitlines():
        qid, _, docid, grade = line.split()
        qrels.setdefault(qid, {})[docid] = int(grade)
    return qrels


def write_runs(qrels: dict[str, dict[str, int]], folder: Path, runs: int = RUNS, seed: int = SEED) -> list[Path]:
    """Runs of graded quality over each topic's judged passages plus unjudged ones: a run ranks
    by a noisy view of the grade, stronger runs with less noise; topics differ in difficulty."""
    rng = np.random.default_rng(seed)
    paths = []
    difficulty = {qid: rng.uniform(0.3, 1.5) for qid in qrels}
    for r in range(runs):
        skill = 0.2 + 1.6 * r / max(runs - 1, 1)
        lines: list[str] = []
        for qid, judged in qrels.items():
            docids = [*judged, *(f"u{qid}-{i}" for i in range(UNJUDGED_PER_TOPIC))]
            grades = np.array([*judged.values(), *([0] * UNJUDGED_PER_TOPIC)], dtype=float)
            signal = grades * skill * difficulty[qid] + rng.normal(0.0, 1.0, len(docids))
            top = np.argsort(-signal, kind="stable")[:DEPTH]
            lines.extend(
                f"{qid} Q0 {docids[d]} {rank} {signal[d]:.4f} run{r:02d}\n" for rank, d in enumerate(top, start=1)
            )
        path = folder / f"run{r:02d}.txt"
        path.write_text("".join(lines))
        paths.append(path)
    return paths


def write_noisy_qrels(qrels: dict[str, dict[str, int]], path: Path, kappa: float, seed: int) -> Path:
    """A noisy copy of expected Cohen's κ `kappa` with the qrels."""
    rng = np.random.default_rng(seed)
    marginal = np.array([g for judged in qrels.values() for g in judged.values()])
    lines = []
    for qid, judged in qrels.items():
        for docid, grade in judged.items():
            kept = rng.random() < kappa
            lines.append(f"{qid} 0 {docid} {grade if kept else int(rng.choice(marginal))}\n")
    path.write_text("".join(lines))
    return path


def published_labels(collection: str) -> Path:
    return PUBLISHED / f"{GPT4}-{collection}.txt.gz"


def build_project(collection: str, folder: Path, kappas: tuple[float, ...] = KAPPAS) -> Project:
    """A project with the collection's human qrels (`human`), synthetic runs, one noisy LLM
    label set per κ (`llm-k0.5`, …) and GPT-4's published UMBRELA grades (`umbrela-gpt4`) when
    their file is there."""
    folder.mkdir(parents=True, exist_ok=True)
    qrels = read_qrels(COLLECTIONS[collection])
    project = Project.open(folder / f"{collection}.duckdb")
    if "human" in {row["name"] for row in project.label_sets()}:
        return project
    project.import_runs(write_runs(qrels, folder))
    project.import_qrels(COLLECTIONS[collection], name="human")
    for i, kappa in enumerate(kappas):
        path = write_noisy_qrels(qrels, folder / f"llm-k{kappa:g}.txt", kappa, seed=SEED + i)
        project.import_qrels(path, name=f"llm-k{kappa:g}", kind="llm")
    inverted = folder / "llm-inverted.txt"
    inverted.write_text(
        "".join(f"{qid} 0 {docid} {3 - grade}\n" for qid, judged in qrels.items() for docid, grade in judged.items())
    )
    project.import_qrels(inverted, name=INVERTED, kind="llm")
    if published_labels(collection).is_file():
        project.import_qrels(published_labels(collection), name=GPT4, kind="llm")
        project.import_qrels(write_binary_gpt4(collection, folder / "gpt4-binary.txt"), name=BINARY_GPT4, kind="llm")
    binary = {q: {d: int(g >= BINARY_LEVEL) for d, g in judged.items()} for q, judged in qrels.items()}
    noisy = write_noisy_qrels(binary, folder / "llm-binary.txt", 0.5, seed=SEED + 50)
    project.import_qrels(noisy, name=BINARY_NOISY, kind="llm")
    project.import_qrels(write_pilot(qrels, folder / "pilot.txt"), name=PILOT)
    return project


def write_binary_gpt4(collection: str, path: Path) -> Path:
    """GPT-4's published grades cut at BINARY_LEVEL: what a binary judge of the same pairs says."""
    with gzip.open(published_labels(collection), "rt", encoding="utf-8") as lines:
        rows = [line.split() for line in lines if line.strip()]
    path.write_text("".join(f"{q} 0 {d} {int(float(g) >= BINARY_LEVEL)}\n" for q, _, d, g in rows))
    return path


def write_pilot(qrels: dict[str, dict[str, int]], path: Path, size: int = PILOT_PAIRS, seed: int = SEED) -> Path:
    """PILOT_PAIRS human-graded pairs drawn at random: what a small pilot audit would have graded."""
    pairs = [(qid, docid, grade) for qid, judged in qrels.items() for docid, grade in judged.items()]
    chosen = np.random.default_rng(seed).choice(len(pairs), min(size, len(pairs)), replace=False)
    path.write_text("".join(f"{pairs[i][0]} 0 {pairs[i][1]} {pairs[i][2]}\n" for i in sorted(chosen)))
    return path


def judges(project: Project) -> list[tuple[str, str]]:
    """(label set, how the table names it): the published GPT-4 labels first, with their graded κ."""
    found = [(f"llm-k{kappa:g}", f"simulated, κ {kappa:g}") for kappa in KAPPAS]
    found.append((INVERTED, "inverted grades (bad judge)"))
    found.append((BINARY_NOISY, "simulated binary (qrels ≥ 2), κ 0.5"))
    if GPT4 in {row["name"] for row in project.label_sets()}:
        kappa = project.agreement(AgreementSpec("human", GPT4))["kappa_graded"]
        found.insert(0, (GPT4, f"GPT-4 UMBRELA (published), κ {kappa:.2f}"))
        found.insert(1, (BINARY_GPT4, "GPT-4 UMBRELA cut at 2 (binary)"))
    return found


def table(
    trials: int,
    folder: Path,
    collections: tuple[str, ...] = ("dl19", "dl20"),
    cells: str = "all",
    only: tuple[str | None, str | None] = (None, None),
) -> list[dict[str, Any]]:
    rows = []
    chosen = {"uniform": CELLS, "adaptive": ADAPTIVE_CELLS, "all": CELLS + ADAPTIVE_CELLS}[cells]
    chosen = tuple(c for c in chosen if only[0] in (None, c[0]) and only[1] in (None, c[1]))
    for collection in collections:
        with build_project(collection, folder / collection) as project:
            for design, measure, budgets in chosen:
                adaptive = design not in ("topics", "pairs")
                for budget in budgets:
                    for label_set, judge in judges(project)[:1] if adaptive else judges(project):
                        found = project.simulate_audit(
                            AuditSimulationSpec(
                                "human",
                                label_set,
                                budget=budget,
                                design=design,
                                trials=trials,
                                measure=measure,
                                seed=SEED,
                                pilot=PILOT if adaptive else None,
                            )
                        )
                        rows.append(
                            {
                                "collection": collection,
                                "design": design,
                                "measure": measure,
                                "budget": budget,
                                "units": found["units"],
                                "judge": judge,
                                **{
                                    k: found[k]
                                    for k in (
                                        "coverage",
                                        "min_run_coverage",
                                        "width",
                                        "gold_coverage",
                                        "gold_width",
                                        "width_ratio",
                                        "mean_lambda",
                                    )
                                },
                                **{k: found.get(k) for k in ("draws", "uniform_coverage", "uniform_width")},
                                "width_vs_uniform": found.get("width_vs_uniform"),
                            }
                        )
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| collection | design (measure) | budget | judge | coverage (min over runs) | width | gold-only width "
        "(coverage) | width ratio | mean λ |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        if row.get("uniform_width") is not None:
            continue
        lines.append(
            f"| {row['collection']} | {row['design']} ({row['measure']}) | {row['budget']} of {row['units']} "
            f"| {row['judge']} | {row['coverage']:.3f} ({row['min_run_coverage']:.3f}) | {row['width']:.3f} "
            f"| {row['gold_width']:.3f} ({row['gold_coverage']:.3f}) | {row['width_ratio']:.2f} "
            f"| {row['mean_lambda']:.2f} |"
        )
    return "\n".join(lines)


def adaptive_markdown(rows: list[dict[str, Any]]) -> str:
    """The designs set beside the uniform one of the same unit and budget."""
    lines = [
        "| collection | design (measure) | budget | judge | coverage (min over runs) | width | uniform design's "
        "width (coverage) | width vs uniform | gold-only width (coverage) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        if row.get("uniform_width") is None:
            continue
        lines.append(
            f"| {row['collection']} | {row['design']} ({row['measure']}) | {row['budget']} of {row['units']} "
            f"| {row['judge']} | {row['coverage']:.3f} ({row['min_run_coverage']:.3f}) | {row['width']:.3f} "
            f"| {row['uniform_width']:.3f} ({row['uniform_coverage']:.3f}) | {row['width_vs_uniform']:.2f} "
            f"| {row['gold_width']:.3f} ({row['gold_coverage']:.3f}) |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--folder", type=Path, default=None, help="Where to keep the projects (default: a temp dir).")
    parser.add_argument("--cells", choices=("uniform", "adaptive", "all"), default="all")
    parser.add_argument(
        "--data", type=Path, default=DATA, help="The folder of the TREC DL qrels (qrels.dl19-passage.txt, …)."
    )
    parser.add_argument("--collections", default="dl19,dl20")
    parser.add_argument("--measure", default=None, help="Only the cells of this measure (e.g. nDCG@10).")
    parser.add_argument("--design", default=None, help="Only the cells of this design (e.g. pairs).")
    args = parser.parse_args()
    for name in COLLECTIONS:
        COLLECTIONS[name] = args.data / COLLECTIONS[name].name
    chosen = tuple(args.collections.split(","))
    with tempfile.TemporaryDirectory() as temp:
        rows = table(args.trials, args.folder or Path(temp), chosen, cells=args.cells, only=(args.design, args.measure))
    print(json.dumps(rows, indent=1))
    print()
    print(markdown(rows))
    print()
    print(adaptive_markdown(rows))


if __name__ == "__main__":
    main()
