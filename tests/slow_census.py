"""Which in-process tests take over half a second: a pytest plugin (`make slow-census`;
`-p slow_census --slow-census FILE`) that writes them to FILE, the list tests/tiers.py marks `slow`.

The edit loop's tier (`make test-fast`) is for tests that answer at once; a test that takes over
half a second in-process (a screen walked through the test driver, a tournament of simulated
judges, a report) runs in `make test` and `make check` alone. The census runs the fast tier as it would be
without the list (`--slow-census` sets it aside) and sums each test's setup, call and teardown as
the reports bring them, from every worker.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

SLOW_SECONDS = 0.5


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow-census", metavar="FILE", help="write the tests that take over half a second into FILE")


class SlowCensus:
    def __init__(self, listing: Path) -> None:
        self.listing = listing
        self.seconds: defaultdict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] += report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(session.config, "workerinput"):
            return  # a worker: the controller has every report
        slow = sorted(nodeid for nodeid, seconds in self.seconds.items() if seconds > SLOW_SECONDS)
        self.listing.write_text("".join(f"{nodeid}\n" for nodeid in slow), encoding="utf-8")
        total = sum(self.seconds[nodeid] for nodeid in slow)
        print(f"\n{len(slow)} tests over {SLOW_SECONDS:g} s ({total:.0f} s in all) written to {self.listing}")


def pytest_configure(config: pytest.Config) -> None:
    listing = config.getoption("slow_census")
    if listing:
        config.pluginmanager.register(SlowCensus(Path(listing)), "slow-census")
