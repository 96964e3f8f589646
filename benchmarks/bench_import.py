"""Import of the DL-scale runs (100 runs x 50 topics x 1000 docs) against DuckDB's own CSV reading,
space- and tab-separated side by side.

The tab-separated files are the space-separated ones with every space turned into a tab (NIST
distributes runs tab-separated). Prints one JSON object with, for each layout: the studio's
import time (fresh project file each repetition), the time DuckDB's `read_csv` alone takes to
read and split the same files into a table (the delimiter given, columns typed), and their
ratio; the part of the import that reads the files (the fast path: reading, splitting and
checking every line, and the check for a docid ranked twice, into the staging table) beside the
same anchor; and the precise line-by-line parser's time on a sample of files (what the fast path
saves).
Usage: python -m benchmarks.bench_import [--repeat 3] [--data benchmarks/.data/dl]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import duckdb

from benchmarks.workload import generate, with_separator
from studio import Project
from studio.formats.text_input import read_text
from studio.formats.trec import parse_run
from studio.store import runs as run_store
from studio.store.database import Database

SEPARATORS = {"space": " ", "tab": "\t"}


def time_studio_import(runs: list[Path], folder: Path, name: str) -> float:
    path = folder / f"import-{name}.duckdb"
    with Project.open(path) as project:
        start = time.perf_counter()
        project.import_runs(runs)
        return time.perf_counter() - start


def time_fast_path(runs: list[Path], folder: Path, name: str) -> float:
    database = Database(folder / f"stage-{name}.duckdb")
    run_store.create_run_staging(database.connection)
    start = time.perf_counter()
    run_store.stage_run_files(database.connection, list(enumerate(runs)))
    elapsed = time.perf_counter() - start
    database.close()
    return elapsed


def time_duckdb_read_csv(runs: list[Path], separator: str, folder: Path, name: str) -> float:
    con = duckdb.connect(str(folder / f"anchor-{name}.duckdb"))
    start = time.perf_counter()
    con.execute(
        "CREATE TABLE rows AS SELECT * FROM read_csv(?, delim = ?, header = false, columns = {"
        "'qid': 'VARCHAR', 'q0': 'VARCHAR', 'docid': 'VARCHAR', 'rank': 'BIGINT', 'score': 'DOUBLE',"
        " 'tag': 'VARCHAR'})",
        [[str(p) for p in runs], separator],
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
    spaced = generate(args.data)
    layouts = {"space": spaced, "tab": with_separator(spaced, args.data.with_name(args.data.name + "-tab"), "\t")}
    times: dict[str, dict[str, list[float]]] = {name: {"studio": [], "anchor": [], "fast": []} for name in layouts}
    with tempfile.TemporaryDirectory() as scratch:
        for index in range(args.repeat):  # the layouts alternate, so that neither gets the quieter machine
            for name, workload in layouts.items():
                tag = f"{name}-{index}"
                times[name]["anchor"].append(time_duckdb_read_csv(workload.runs, SEPARATORS[name], Path(scratch), tag))
                times[name]["studio"].append(time_studio_import(workload.runs, Path(scratch), tag))
                times[name]["fast"].append(time_fast_path(workload.runs, Path(scratch), tag))
    figures: dict[str, Any] = {}
    for name, workload in layouts.items():
        studio = statistics.median(times[name]["studio"])
        anchor = statistics.median(times[name]["anchor"])
        fast = statistics.median(times[name]["fast"])
        figures[name] = {
            "megabytes": round(sum(p.stat().st_size for p in workload.runs) / 1e6, 1),
            "studio_import_seconds": round(studio, 3),
            "duckdb_read_csv_seconds": round(anchor, 3),
            "ratio_studio_to_read_csv": round(studio / anchor, 2),
            "fast_path_seconds": round(fast, 3),
            "ratio_fast_path_to_read_csv": round(fast / anchor, 2),
            "studio_import_seconds_all": [round(t, 3) for t in times[name]["studio"]],
            "duckdb_read_csv_seconds_all": [round(t, 3) for t in times[name]["anchor"]],
        }
    sample = spaced.runs[:5]
    precise = time_precise_parser(sample) * len(spaced.runs) / len(sample)
    print(
        json.dumps(
            {
                "benchmark": "import DL-scale runs",
                "runs": len(spaced.runs),
                "rows": len(spaced.runs) * 50 * 1000,
                "repeat": args.repeat,
                **figures,
                "precise_parser_seconds_estimated": round(precise, 2),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
