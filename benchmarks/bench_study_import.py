"""A prompt study's folder of judgment files imported in one process (`studio import study`),
against DuckDB reading the same pointwise files alone.

The folder copies the published study's layout (`Judgements/MODEL/METHOD/MODEL_METHOD_COLLECTION_
PROMPT.txt`): 3 models × 3 methods × 2 collections × 27 prompts, less 12 files, = 474 files;
binary and graded files of 1,500 qrels lines, pairwise ones of 500 pairs asked in both orders in
the release's 7-column layout. Prints one JSON object: the studio's import time (fresh project,
references and prompts already in), DuckDB's `read_csv` of the 316 pointwise files in one query
(the anchor), their ratio, and the files and rows imported.
Usage: python -m benchmarks.bench_study_import [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

import duckdb

from studio import Project

MODELS, METHODS, COLLECTIONS, PROMPTS = (
    ("gpt-4o", "llama", "mistral"),
    ("binary", "graded", "pairwise"),
    ("dl20", "dl21"),
    27,
)
PASSAGES, PAIRS, LEFT_OUT = 1_500, 500, 12
PATTERN = "{model}_{method}_{collection}_{prompt}.txt"


def write_release(root: Path) -> tuple[list[Path], int]:
    """The folder, the references and prompts.json under `root`; the pointwise files and all files."""
    rng = random.Random(0)
    grades = {c: [(f"{c}{i % 50}", f"p{i}", rng.randrange(4)) for i in range(PASSAGES)] for c in COLLECTIONS}
    (root / "qrels.txt").write_text(
        "".join(f"{q} 0 {d} {g}\n" for c in COLLECTIONS for q, d, g in grades[c]), encoding="utf-8"
    )
    user = {
        "binary": "{query} {document}",
        "graded": "{query} {document}",
        "pairwise": "{query} {documentA} {documentB}",
    }
    prompts = {
        str(p): {"participant_name": f"human-{p}", **{m: {"system": "", "user": u} for m, u in user.items()}}
        for p in range(PROMPTS)
    }
    (root / "prompts.json").write_text(json.dumps(prompts), encoding="utf-8")
    combos = [(m, t, c, p) for m in MODELS for t in METHODS for c in COLLECTIONS for p in range(PROMPTS)][LEFT_OUT:]
    pointwise = []
    for model, method, collection, prompt in combos:
        path = root / "Judgements" / model / method / f"{model}_{method}_{collection}_{prompt}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = grades[collection]
        if method == "pairwise":
            lines = [
                f"{q} top low {order} {first} {second} {rng.choice('AB')}\n"
                for (q, a, _), (_, b, _) in zip(rows[:PAIRS], rows[PAIRS : 2 * PAIRS], strict=True)
                for order, first, second in (("regular", a, b), ("swapped", b, a))
            ]
        else:
            top = 1 if method == "binary" else 3
            lines = [f"{q} 0 {d} {min(g, top)}\n" for q, d, g in rows]
            pointwise.append(path)
        path.write_text("".join(lines), encoding="utf-8")
    return pointwise, len(combos)


def time_import(root: Path, run: int) -> tuple[float, int]:
    with Project.open(root / f"study-{run}.duckdb") as project:
        project.import_qrels(root / "qrels.txt", name="human")
        project.import_prompts(root / "prompts.json", name="ps")
        start = time.perf_counter()
        report = project.import_study(root / "Judgements", pattern=PATTERN, prompts="ps")
        return time.perf_counter() - start, report.counts["labels"] + report.counts["preference pairs"]


def time_anchor(files: list[Path]) -> float:
    con = duckdb.connect()
    start = time.perf_counter()
    con.execute(
        "CREATE TABLE t AS SELECT * FROM read_csv(?, delim=' ', header=false,"
        " columns={'qid': 'VARCHAR', 'it': 'VARCHAR', 'docid': 'VARCHAR', 'grade': 'DOUBLE'})",
        [[str(f) for f in files]],
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        pointwise, files = write_release(root)
        studio = [time_import(root, run) for run in range(args.repeat)]
        anchor = [time_anchor(pointwise) for _ in range(args.repeat)]
    seconds, anchor_seconds = statistics.median(s for s, _ in studio), statistics.median(anchor)
    print(
        json.dumps(
            {
                "files": files,
                "rows": studio[0][1],
                "studio_seconds": round(seconds, 3),
                "duckdb_read_csv_seconds": round(anchor_seconds, 3),
                "ratio": round(seconds / anchor_seconds, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
