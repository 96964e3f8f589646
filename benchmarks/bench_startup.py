"""How fast the command line starts (docs/design.md#6-performance-budgets: `studio --version` within 1.5x
and `studio list` on the sample project within 3x `python -c "import duckdb"`, measured in the same run).

Each command runs as a fresh process, as a script calling the studio in a loop runs it: the
`studio` program installed beside this interpreter (`python -m studio` without one). The sample
project is built once, before any timing, in a temporary folder.

Prints one JSON object: per command, the wall seconds of every run and their median, and the
ratio of each median to the anchor's median (`python -c "import duckdb"`), which the budgets are
on; beside them the processes' CPU seconds (user + system) and their ratio, steadier than wall time
on a machine other work keeps busy. The commands take turns run by run, so a machine that gets
busier halfway slows all of them alike.
Usage: python -m benchmarks.bench_startup [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BUDGETS = {"version": 1.5, "list": 3.0}


def studio_program() -> list[str]:
    """The installed `studio` script beside this interpreter, as a user runs it."""
    script = Path(sys.executable).with_name("studio")
    return [str(script)] if script.exists() else [sys.executable, "-m", "studio"]


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one run of `argv`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, timeout=120)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def build_sample(folder: Path, env: dict[str, str]) -> Path:
    path = folder / "demo.duckdb"
    argv = [*studio_program(), "demo", "--no-tui", "--db", str(path)]
    subprocess.run(argv, check=True, capture_output=True, env=env, timeout=600)
    return path


def measure(runs: int) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDIO_")}
    with tempfile.TemporaryDirectory() as tmp:
        env["XDG_DATA_HOME"] = tmp  # nothing of the person's own data folder is read or written
        project = build_sample(Path(tmp), env)
        commands = {
            "anchor": [sys.executable, "-c", "import duckdb"],
            "version": [*studio_program(), "--version"],
            "list": [*studio_program(), "--db", str(project), "list"],
        }
        for argv in commands.values():  # one warm-up each: the page cache, not the first run's disk
            timed(argv, env)
        times: dict[str, list[float]] = {name: [] for name in commands}
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(runs):
            for name, argv in commands.items():
                wall, used = timed(argv, env)
                times[name].append(wall)
                cpu[name].append(used)
    anchor = statistics.median(times["anchor"])
    anchor_cpu = statistics.median(cpu["anchor"])
    result: dict[str, object] = {
        "runs": runs,
        "load_average": [round(x, 2) for x in os.getloadavg()],  # a busy machine stretches every ratio
        "anchor": {
            "command": 'python -c "import duckdb"',
            "median_s": round(anchor, 4),
            "cpu_median_s": round(anchor_cpu, 4),
        },
    }
    for name in ("version", "list"):
        median = statistics.median(times[name])
        result[name] = {
            "median_s": round(median, 4),
            "seconds": [round(t, 4) for t in times[name]],
            "ratio": round(median / anchor, 2),
            "budget": BUDGETS[name],
            "within_budget": median / anchor <= BUDGETS[name],
            "cpu_median_s": round(statistics.median(cpu[name]), 4),
            "cpu_ratio": round(statistics.median(cpu[name]) / anchor_cpu, 2),
        }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="runs of each command (default: 15)")
    print(json.dumps(measure(parser.parse_args().runs), indent=2))


if __name__ == "__main__":
    main()
