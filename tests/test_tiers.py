"""The suite's tiers hold: a test not marked for it can start no process, listen on no socket and
load no model (tests/tiers.py's guard, in force in every run), the folders and fixtures that
start processes mark their tests, and `make test-fast` runs the `fast` tier alone."""

from __future__ import annotations

import multiprocessing
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from tiers import FAST, NOT_FAST, TESTS, TierViolation, guarded, tier_markers

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
