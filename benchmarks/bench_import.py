"""Import of the DL-scale runs (100 runs x 50 topics x 1000 docs) against DuckDB's own CSV reading.

Prints one JSON object: the studio's import time (fresh project file each repetition), the time
DuckDB's `read_csv` alone takes to load the same files into a table, their ratio, and the
precise line-by-line parser's time on a sample of files (what the fast path saves).
Usage: python benchmarks/bench_import.py [--repeat 3] [--data benchmarks/.data/dl]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import duckdb

from benchmarks.workload import generate
from studio import Project
from studio.formats.text_input import read_text
from studio.formats.trec import parse_run


def time_studio_import(runs: list[Path], folder: Path, index: int) -> float:
    path = folder / f"import-{index}.duckdb"
    with Project.open(path) as project:
        start = time.perf_counter()
        project.import_runs(runs)
        return time.perf_counter() - start


def time_duckdb_read_csv(runs: list[Path], folder: Path, index: int) -> float:
    con = duckdb.connect(str(folder / f"anchor-{index}.duckdb"))
    start = time.perf_counter()
    con.execute(
        "CREATE TABLE rows AS SELECT * FROM read_csv(?, delim = ' ', header = false, columns = {"
        "'qid': 'VARCHAR', 'q0': 'VARCHAR', 'docid': 'VARCHAR', 'rank': 'BIGINT', 'score': 'DOUBLE',"
        " 'tag': 'VARCHAR'})",
        [[str(p) for p in runs]],
    )
    elapsed = time.perf_counter() - start
    con.close()
    return elapsed


def time_precise_parser(runs: list[Path]) -> float:
    start = time.perf_counter()
    for path in runs:
        parse_run(read_text(path), str(path))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=Path(__file__).parent / ".data" / "dl")
    args = parser.parse_args()
    workload = generate(args.data)
    size = sum(p.stat().st_size for p in workload.runs)
    studio_times, anchor_times = [], []
    with tempfile.TemporaryDirectory() as scratch:
        for index in range(args.repeat):
            anchor_times.append(time_duckdb_read_csv(workload.runs, Path(scratch), index))
            studio_times.append(time_studio_import(workload.runs, Path(scratch), index))
    sample = workload.runs[:5]
    precise = time_precise_parser(sample) * len(workload.runs) / len(sample)
    studio = statistics.median(studio_times)
    anchor = statistics.median(anchor_times)
    print(json.dumps({
        "benchmark": "import DL-scale runs",
        "runs": len(workload.runs),
        "rows": len(workload.runs) * 50 * 1000,
        "megabytes": round(size / 1e6, 1),
        "repeat": args.repeat,
        "studio_import_seconds": round(studio, 3),
        "duckdb_read_csv_seconds": round(anchor, 3),
        "ratio_studio_to_read_csv": round(studio / anchor, 2),
        "precise_parser_seconds_estimated": round(precise, 2),
        "studio_import_seconds_all": [round(t, 3) for t in studio_times],
        "duckdb_read_csv_seconds_all": [round(t, 3) for t in anchor_times],
    }, indent=2))


if __name__ == "__main__":
    main()
