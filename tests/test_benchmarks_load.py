"""Every benchmark module loads (its imports resolve), so `make bench` cannot break unseen when
the code it measures moves. They load in a fresh interpreter from the checkout's root, as
`python -m benchmarks.NAME` does: the test process's own sys.path (tests/ is on it) would hide a
helper the benchmark can no longer find. One interpreter loads them all, each in its own try, and
says how each went; each module's test reads its own answer. Running them is `make bench`'s job:
timings never gate a test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BENCHMARKS = sorted(p.stem for p in (REPO / "benchmarks").glob("bench_*.py"))

# Prints {module: null when it loads with a callable main, else what went wrong}.
LOAD_EACH = """
import importlib, json, sys, traceback
found = {}
for name in sys.argv[1:]:
    try:
        module = importlib.import_module(f"benchmarks.{name}")
        found[name] = None if callable(getattr(module, "main", None)) else "no callable main"
    except BaseException:
        found[name] = traceback.format_exc()
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def loaded() -> dict[str, str | None]:
    done = subprocess.run(
        [sys.executable, "-c", LOAD_EACH, *BENCHMARKS], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, str | None] = json.loads(done.stdout)
    return found


def test_the_benchmarks_are_found() -> None:
    assert {"bench_eval", "bench_import", "bench_judge", "bench_simulation", "bench_tui"} <= set(BENCHMARKS)


@pytest.mark.process
@pytest.mark.parametrize("name", BENCHMARKS)
def test_a_benchmark_module_loads(name: str, loaded: dict[str, str | None]) -> None:
    assert name in loaded
    assert loaded[name] is None, loaded[name]
