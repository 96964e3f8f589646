"""Import of runs against DuckDB's own CSV reading, in three layouts side by side: the DL-scale
runs (100 runs x 50 topics x 1000 docs) space- and tab-separated, and runs laid out as NIST's
TREC DL 2021 passage runs (63 tab-separated files, long docids, `benchmarks.nist_layout`).

The tab-separated DL-scale files are the space-separated ones with every space turned into a
tab. Prints one JSON object with, for each layout: the studio's
import time (fresh project file each repetition), the time DuckDB's `read_csv` alone takes to
read and split the same files into a table (the delimiter given, columns typed), and their
ratio; the part of the import that reads the files (the fast path: reading, splitting and
checking every line, and the check for a docid ranked twice, into the staging table) beside the
same anchor; and the precise line-by-line parser's time on a sample of files (what the fast path
saves; on the space-separated layout).
Usage: python -m benchmarks.bench_import [--repeat 3] [--layout space|tab|nist …] [--data benchmarks/.data/dl]
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

from benchmarks.nist_layout import generate_nist_runs
from benchmarks.workload import generate, with_separator
from studio import Project
from studio.formats.text_input import read_text
from studio.formats.trec import parse_run
from studio.store import runs as run_store
from studio.store.database import Database

SEPARATORS = {"space": " ", "tab": "\t", "nist": "\t"}


def layout_runs(name: str, data: Path) -> list[Path]:
    """The run files of layout `name`, generated under `data`'s folder the first time."""
    if name == "nist":
        return generate_nist_runs(data.with_name("nist-dl21"))
    spaced = generate(data).runs
    if name == "space":
        return spaced
    return with_separator(generate(data), data.with_name(data.name + "-tab"), "\t").runs


def time_studio_import(runs: list[Path], folder: Path, name: str) -> tuple[float, int]:
    """Seconds the facade's import of `runs` takes into a fresh project file, and the rows it stored."""
    path = folder / f"import-{name}.duckdb"
    with Project.open(path) as project:
        start = time.perf_counter()
        report = project.import_runs(runs)
        return time.perf_counter() - start, report.counts["rows"]


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
    parser.add_argument(
        "--layout", action="append", choices=sorted(SEPARATORS), help="measure only this layout (repeatable)"
    )
    args = parser.parse_args()
    layouts = {name: layout_runs(name, args.data) for name in (args.layout or SEPARATORS)}
    times: dict[str, dict[str, list[float]]] = {name: {"studio": [], "anchor": [], "fast": []} for name in layouts}
    rows: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for index in range(args.repeat):  # the layouts alternate, so that neither gets the quieter machine
            for name, runs in layouts.items():
                tag = f"{name}-{index}"
                times[name]["anchor"].append(time_duckdb_read_csv(runs, SEPARATORS[name], Path(scratch), tag))
                seconds, rows[name] = time_studio_import(runs, Path(scratch), tag)
                times[name]["studio"].append(seconds)
                times[name]["fast"].append(time_fast_path(runs, Path(scratch), tag))
    figures: dict[str, Any] = {}
    for name, runs in layouts.items():
        studio = statistics.median(times[name]["studio"])
        anchor = statistics.median(times[name]["anchor"])
        fast = statistics.median(times[name]["fast"])
        figures[name] = {
            "runs": len(runs),
            "rows": rows[name],
            "megabytes": round(sum(p.stat().st_size for p in runs) / 1e6, 1),
            "studio_import_seconds": round(studio, 3),
            "duckdb_read_csv_seconds": round(anchor, 3),
            "ratio_studio_to_read_csv": round(studio / anchor, 2),
            "fast_path_seconds": round(fast, 3),
            "ratio_fast_path_to_read_csv": round(fast / anchor, 2),
            "studio_import_seconds_all": [round(t, 3) for t in times[name]["studio"]],
            "duckdb_read_csv_seconds_all": [round(t, 3) for t in times[name]["anchor"]],
        }
    result: dict[str, Any] = {"benchmark": "import runs", "repeat": args.repeat, **figures}
    if "space" in layouts:
        sample = layouts["space"][:5]
        precise = time_precise_parser(sample) * len(layouts["space"]) / len(sample)
        result["precise_parser_seconds_estimated"] = round(precise, 2)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
