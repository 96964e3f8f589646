"""Every benchmark module loads (its imports resolve), so `make bench` cannot break unseen when
the code it measures moves. Running them is `make bench`'s job: timings never gate a test."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

BENCHMARKS = sorted(p.stem for p in (Path(__file__).resolve().parents[1] / "benchmarks").glob("bench_*.py"))


def test_the_benchmarks_are_found() -> None:
    assert {"bench_eval", "bench_import", "bench_judge", "bench_tui"} <= set(BENCHMARKS)


@pytest.mark.parametrize("name", BENCHMARKS)
def test_a_benchmark_module_loads(name: str) -> None:
    module = importlib.import_module(f"benchmarks.{name}")
    assert callable(module.main)
