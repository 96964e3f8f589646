"""Which tests' numbers pass through BLAS or LAPACK: a pytest plugin run under the counting
library of `shim.py` (`make blas-census`; `-p blas_census.plugin --blas-census FOLDER`).

A test counts when it, a process it started, or a fixture it uses made any such call while being
set up, run or torn down: a session fixture computes once for every test that reads it, so a test
that only reads what the fixture computed is as exposed to the kernel as the first one. Each test
process writes the node ids it found to FOLDER/<worker>.txt; `census.py` joins them into
tests/blas_tests.txt, the list `make check-kernel` runs again on a second OpenBLAS kernel.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import tempfile
from collections.abc import Generator
from pathlib import Path

import pytest

CHILD_COUNTS = "BLAS_CENSUS_CHILD"  # read by the counting library in processes a test starts


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--blas-census", metavar="FOLDER", help="write the tests that call BLAS into FOLDER")


class Census:
    def __init__(self, folder: Path) -> None:
        library = ctypes.CDLL(None)  # the counting library is preloaded into every process
        try:
            self.count = library.blas_census_count
        except AttributeError:
            raise pytest.UsageError("--blas-census needs LD_PRELOAD naming the library shim.py builds") from None
        self.count.restype = ctypes.c_uint64
        self.folder = folder
        self.import_calls = import_calls()
        self.counting_fixtures: set[str] = set()
        self.found: set[str] = set()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef: pytest.FixtureDef[object]) -> Generator[None, None, None]:
        before = self.count()
        yield
        if self.count() != before:
            self.counting_fixtures.add(fixturedef.argname)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, None, None]:
        with tempfile.NamedTemporaryFile(prefix="blas-census-", delete=False) as handle:
            children = Path(handle.name)
        os.environ[CHILD_COUNTS] = str(children)
        before = self.count()
        try:
            yield
        finally:
            del os.environ[CHILD_COUNTS]
            used = set(getattr(item, "fixturenames", ()))
            child_calls = [int(line.split()[1]) for line in children.read_text().splitlines()]
            children.unlink()
            computed_in_a_child = any(calls > self.import_calls for calls in child_calls)
            if self.count() != before or computed_in_a_child or used & self.counting_fixtures:
                self.found.add(item.nodeid)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")  # xdist's controller writes an empty list
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / f"{worker}.txt").write_text("".join(f"{nodeid}\n" for nodeid in sorted(self.found)))


def import_calls() -> int:
    """The calls a process makes by importing numpy and scipy alone (numpy checks its BLAS as it
    loads): a process the test starts that makes no more computed none of its numbers."""
    probe = "import ctypes, numpy, scipy.linalg, scipy.stats; print(ctypes.CDLL(None).blas_census_count())"
    env = {k: v for k, v in os.environ.items() if k != CHILD_COUNTS}
    return int(
        subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True).stdout
    )


def pytest_configure(config: pytest.Config) -> None:
    folder = config.getoption("--blas-census")
    if folder:
        config.pluginmanager.register(Census(Path(folder)), "blas-census")
