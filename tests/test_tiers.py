"""The suite's tiers hold: a test not marked for it can start no process, listen on no socket and
load no model (tests/tiers.py's guard, in force in every run), the folders and fixtures that
start processes mark their tests, the census's slow tests leave the `fast` tier, and `make
test-fast` runs that tier alone."""

from __future__ import annotations

import multiprocessing
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from tiers import FAST, NOT_FAST, SLOW, TESTS, TierViolation, guarded, listed_slow, mark_tiers, tier_markers

from studio.domain.errors import UsageError
from studio.judges.embedder import Embedder
from studio.judges.llamacpp_backend import LlamaCppBackend

REPO = TESTS.parent


def test_an_unmarked_test_can_start_no_process() -> None:
    with guarded("a test", set()):
        with pytest.raises(TierViolation, match="`process` marker"):
            subprocess.run([sys.executable, "-c", "pass"], check=True)
        with pytest.raises(TierViolation):
            os.system("true")
        with pytest.raises(TierViolation):
            os.fork()
        with pytest.raises(TierViolation):
            multiprocessing.get_context("fork").Process(target=print).start()


def test_an_unmarked_test_can_listen_on_no_socket() -> None:
    with guarded("a test", set()), socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        with pytest.raises(TierViolation, match="`server` marker"):
            listener.listen()


def test_an_unmarked_test_can_load_no_model(tmp_path: Path) -> None:
    not_a_model = tmp_path / "model.gguf"
    not_a_model.write_bytes(b"GGUF" + bytes(100))
    with guarded("a test", set()):
        with pytest.raises(TierViolation, match="`model` marker"):
            LlamaCppBackend()
        with pytest.raises(UsageError, match="not a GGUF model"):  # a small file: llama.cpp refuses it itself
            LlamaCppBackend(not_a_model)


@pytest.mark.extra("embeddings")
def test_an_unmarked_test_can_load_no_embedding_model() -> None:
    with guarded("a test", set()), pytest.raises(TierViolation, match="`model` marker"):
        Embedder().encode(["a passage"])


def test_a_marked_test_may_do_what_its_marker_allows() -> None:
    before = subprocess.Popen._execute_child, socket.socket.listen, os.fork  # type: ignore[attr-defined]

    def now() -> tuple[object, ...]:
        return subprocess.Popen._execute_child, socket.socket.listen, os.fork  # type: ignore[attr-defined]

    with guarded("a test", {"process", "server", "model"}):
        assert now() == before
    with guarded("a test", set()):
        assert all(a is not b for a, b in zip(now(), before, strict=True))
    assert now() == before  # put back


@pytest.mark.parametrize(
    ("path", "fixtures", "expected"),
    [
        ("faults/test_kills.py", [], {"process"}),
        ("concurrency/test_waiting.py", ["sample"], {"process"}),
        ("cli/test_tables.py", ["terminal"], {"process", "terminal"}),
        ("team/test_a.py", ["pg_cluster"], {"process", "postgres"}),
        ("judges/test_batch.py", ["server"], {"server"}),
        ("embeddings/test_frechet.py", ["embedder"], {"model"}),
        ("metrics/test_kendall.py", ["sample", "tmp_path"], set()),
    ],
)
def test_folders_and_fixtures_mark_their_tests(path: str, fixtures: list[str], expected: set[str]) -> None:
    assert tier_markers(TESTS / path, fixtures) == expected


def test_every_collected_test_is_fast_or_marked_otherwise(request: pytest.FixtureRequest) -> None:
    items = request.session.items
    assert items
    for item in items:
        names = {mark.name for mark in item.iter_markers()}
        assert (FAST in names) != bool(names & NOT_FAST), item.nodeid
        if "terminal" in getattr(item, "fixturenames", ()):
            assert {"terminal", "process"} <= names, item.nodeid


def test_make_test_fast_runs_the_fast_tier_alone() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\ntest-fast:", 1)[1].split("\n\n", 1)[0]
    assert "-m fast" in recipe and "HYPOTHESIS_PROFILE=fast" in recipe


class Collected:
    """What `mark_tiers` reads of a collected test, and the markers it is given."""

    def __init__(self, nodeid: str, fixtures: tuple[str, ...] = ()) -> None:
        self.nodeid = nodeid
        self.path = REPO / nodeid.partition("::")[0]
        self.fixturenames = fixtures
        self.markers: list[str] = []

    def add_marker(self, name: str) -> None:
        self.markers.append(name)

    def iter_markers(self) -> list[pytest.Mark]:
        return [pytest.Mark(name, (), {}) for name in self.markers]


def test_a_test_the_census_lists_is_slow_and_not_fast() -> None:
    listed, unlisted = Collected("tests/tui/test_a.py::test_walk"), Collected("tests/tui/test_a.py::test_key")
    mark_tiers([listed, unlisted], slow=frozenset({listed.nodeid}))  # type: ignore[list-item]
    assert listed.markers == [SLOW] and unlisted.markers == [FAST]
    process = Collected("tests/faults/test_a.py::test_kill")
    mark_tiers([process], slow=frozenset({process.nodeid}))  # type: ignore[list-item]
    assert sorted(process.markers) == ["process", SLOW]


def test_the_listed_slow_tests_are_marked_so(request: pytest.FixtureRequest) -> None:
    if request.config.getoption("slow_census", None):
        pytest.skip("a census of slow tests measures the listed ones in the fast tier too")
    listed = listed_slow()
    assert listed, "tests/slow_tests.txt is empty: `make slow-census`"
    for item in request.session.items:
        if item.nodeid in listed:
            names = {mark.name for mark in item.iter_markers()}
            assert SLOW in names and FAST not in names, item.nodeid


def test_make_slow_census_measures_the_fast_tier_without_the_list() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\nslow-census:", 1)[1].split("\n\n", 1)[0]
    assert "-m fast" in recipe and "--slow-census tests/slow_tests.txt" in recipe
