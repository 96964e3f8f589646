"""Every benchmark module loads (its imports resolve), so `make bench` cannot break unseen when
the code it measures moves. Each loads in a fresh interpreter from the checkout's root, as
`python -m benchmarks.NAME` does: the test process's own sys.path (tests/ is on it) would hide a
helper the benchmark can no longer find. Running them is `make bench`'s job: timings never gate
a test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BENCHMARKS = sorted(p.stem for p in (REPO / "benchmarks").glob("bench_*.py"))


def test_the_benchmarks_are_found() -> None:
    assert {"bench_eval", "bench_import", "bench_judge", "bench_simulation", "bench_tui"} <= set(BENCHMARKS)


@pytest.mark.parametrize("name", BENCHMARKS)
def test_a_benchmark_module_loads(name: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", f"import benchmarks.{name} as m; assert callable(m.main)"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
