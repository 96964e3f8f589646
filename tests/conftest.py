"""Fixtures shared across test folders: the sample project built once per test process and
copied for each test that changes it; one PostgreSQL server per test process for every test that
needs one (each such test makes a database of its own on it, so tests stay independent); the
suite's tiers (tests/tiers.py) and its hypothesis profiles."""

from __future__ import annotations

import importlib.util
import os
import uuid
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from extras import REQUIRE, check_extras, extra_of_missing_module, hide_extras, skip_reason, skipped_for_an_extra
from helpers import copy_project, judge_all
from hypothesis_profiles import load_profile
from judge_helpers import LLAMA_THREADS
from pg_roles import PG_COORDINATOR, PG_MEMBERS, PG_OUTSIDER
from terminal_helpers import Terminal
from tiers import allowed_for, guarded, mark_tiers

from benchmarks.pg_cluster import Cluster, server_bin, start_cluster
from studio import Project
from studio.domain.judging import JudgeConfig

if TYPE_CHECKING:  # llama.cpp is imported by the tests that load the model, not by every worker
    from studio.judges.llamacpp_backend import LlamaCppBackend


load_profile()  # before any test module's @settings reads the defaults
hide_extras()  # STUDIO_HIDE_EXTRAS: before any test module imports one

# matplotlib keeps its font list in a cache folder under HOME, and builds it (running fc-list) on its
# first import where the folder lacks it. Tests give the studio a HOME of their own: without one
# folder for the whole session, each worker's first report would rebuild it, in a process.
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
os.environ.setdefault("MPLCONFIGDIR", str(CACHE / "matplotlib"))


def pytest_sessionstart(session: pytest.Session) -> None:
    if not list(Path(os.environ["MPLCONFIGDIR"]).glob("fontlist-*.json")):
        import matplotlib.font_manager  # noqa: F401  # builds the font list once, before any test's guard


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # A census of slow tests (tests/slow_census.py) measures them all again, the listed ones too.
    mark_tiers(items, slow=frozenset() if config.getoption("slow_census", None) else None)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    check_extras(item)
    # Fixtures included: a session fixture that starts a process is started by the first test using it.
    with guarded(item.nodeid, allowed_for(item)):
        yield


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, object, object]:
    """Under STUDIO_REQUIRE_EXTRAS=1 (`make check`), a skip for want of an extra is a failure."""
    report = yield
    if isinstance(report, pytest.TestReport):
        fail_a_skip_for_an_extra(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, object, object]:
    """The same for a whole module skipped as it is collected (`pytest.importorskip` at its top); a
    module that cannot be imported because it imports an extra's module at its top skips too."""
    report = yield
    if isinstance(report, pytest.CollectReport):
        skip_a_module_without_its_extra(collector, report)
        fail_a_skip_for_an_extra(report)
    return report


def skip_a_module_without_its_extra(collector: pytest.Collector, report: pytest.CollectReport) -> None:
    if not (report.failed and isinstance(collector, pytest.Module)):
        return
    try:
        collector.obj  # noqa: B018  # imported again: the error pytest turned into the report
    except pytest.Collector.CollectError as error:
        extra = extra_of_missing_module(error.__cause__) if error.__cause__ is not None else None
        if extra is not None:
            report.outcome = "skipped"
            report.longrepr = (str(collector.path), 0, f"Skipped: {skip_reason(extra)}")


def fail_a_skip_for_an_extra(report: pytest.TestReport | pytest.CollectReport) -> None:
    if REQUIRE and report.skipped and isinstance(report.longrepr, tuple):
        reason = str(report.longrepr[2])
        if skipped_for_an_extra(reason) is not None:
            report.outcome = "failed"
            report.longrepr = f"STUDIO_REQUIRE_EXTRAS=1, yet {reason}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    with guarded(item.nodeid, allowed_for(item)):
        yield


@pytest.fixture(scope="session")
def sample_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample project as `studio demo` builds it; built once."""
    path = tmp_path_factory.mktemp("sample") / "sample.duckdb"
    Project.sample(path).close()
    return path


@pytest.fixture()
def sample(sample_template: Path, tmp_path: Path) -> Path:
    return copy_project(sample_template, tmp_path)


@pytest.fixture(scope="session")
def simulated_sample_template(sample_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample project plus `sim`, a simulated judge (κ 0.4) of every human pair; built once."""
    path = copy_project(sample_template, tmp_path_factory.mktemp("simulated-sample"), "sample.duckdb")
    with Project.sample(path) as project:
        judge_all(project.db, JudgeConfig(method="umbrela", backend="simulated", name="sim", kappa=0.4))
    return path


@pytest.fixture()
def simulated_sample(simulated_sample_template: Path, tmp_path: Path) -> Path:
    return copy_project(simulated_sample_template, tmp_path)


@pytest.fixture(scope="session")
def llama_backend() -> Iterator[LlamaCppBackend]:
    """The bundled SmolLM2-135M through llama.cpp, loaded once per test process for every test that
    runs it in-process (marked `model` by tests/tiers.py). A test that changes `reuse_prefix`
    puts it back."""
    from studio.judges.llamacpp_backend import LlamaCppBackend

    loaded = LlamaCppBackend(threads=LLAMA_THREADS)
    yield loaded
    loaded.close()


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    """A real terminal (tmux) whose programs see a private home folder."""
    unset = {"TMUX", "STUDIO_DB", "STUDIO_SAMPLE_DATA", "COLUMNS", "LINES"}
    env = {k: v for k, v in os.environ.items() if k not in unset}
    env.update(HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"))
    session = Terminal(f"studio-test-{uuid.uuid4().hex[:10]}", env)
    try:
        yield session
    finally:
        session.kill()


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """A PostgreSQL server started once per test process as Debian's `postgres` user in a temporary
    folder on a free loopback port; the roles' passwords live in its passfile (PGPASSFILE), never
    in a connection string. Without the server binaries or psycopg, the tests that need it skip and
    say why."""
    if server_bin() is None:
        pytest.skip("no PostgreSQL server binaries in /usr/lib/postgresql/*/bin (apt-get install postgresql-15)")
    if importlib.util.find_spec("psycopg") is None:
        pytest.skip("psycopg is not installed (pip install -e '.[team]')")
    cluster = start_cluster(PG_COORDINATOR, [*PG_MEMBERS, PG_OUTSIDER])
    try:
        yield cluster
    finally:
        from studio.store.team.server import forget_kept

        forget_kept()  # the connections kept between syncs, before their server goes
        cluster.remove()
