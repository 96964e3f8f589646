"""The suite's tiers: which tests start processes, drive a terminal, start PostgreSQL, load a real
model or serve on a socket, and the guard that holds every other test to none of that.

Every test gets the markers of the folders it lives in and of the fixtures it uses (a new test
inherits them without saying anything); a test that does such a thing by itself says so with
`@pytest.mark.process` (or `model`, `server`, …). A test that takes over half a second
in-process is `slow`: it says so itself, or the census lists it (tests/slow_tests.txt, `make
slow-census`, tests/slow_census.py). Every test left without one of these markers is marked
`fast`: `make test-fast` runs those alone (`pytest -m fast`), the edit loop's few minutes.

The guard is what keeps the marking honest. While a test's fixtures are set up and while it runs,
a test that is not marked `process` cannot start a process (subprocess, fork, spawn, system), one
that is not marked `server` cannot listen on a socket, and one that is not marked `model` cannot
load the bundled language or embedding model: each fails at once, naming the marker it lacks.
The guard holds in every run, not only the fast tier's, so a wrong marking fails where it is made.
"""

from __future__ import annotations

import _posixsubprocess
import os
import socket
import subprocess
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

TESTS = Path(__file__).resolve().parent

# What a test may do beyond computing, each a marker; `fast` is a test that does none of them.
MARKERS = {
    "process": "starts a process: the real entry point, a judge beside others, a kill, tmux, PostgreSQL",
    "terminal": "drives a real terminal (tmux)",
    "postgres": "starts a PostgreSQL cluster",
    "model": "loads a real model: SmolLM2 through llama.cpp or all-MiniLM through torch",
    "server": "serves HTTP on a loopback socket (a fake or a real OpenAI-compatible server)",
}
FAST = "fast"
SLOW = "slow"
NOT_FAST = frozenset({*MARKERS, SLOW})
# The in-process tests the last census measured over half a second (`make slow-census`).
SLOW_LIST = TESTS / "slow_tests.txt"

# A folder's tests all do these (a path relative to tests/, and every folder below it).
FOLDER_MARKERS: dict[str, frozenset[str]] = {
    "faults": frozenset({"process"}),  # kills studio processes at drawn moments
    "concurrency": frozenset({"process"}),  # many studio processes on one file
    "team": frozenset({"process"}),  # members in processes of their own, PostgreSQL's tools
}

# A fixture's users do these (pytest's fixture closure: used directly or through another fixture).
FIXTURE_MARKERS: dict[str, frozenset[str]] = {
    "terminal": frozenset({"process", "terminal"}),
    "pg_cluster": frozenset({"process", "postgres"}),
    "server": frozenset({"server"}),  # tests/judges: the fake OpenAI-compatible server
    "fake_server": frozenset({"server"}),
    "llama_server": frozenset({"process", "server", "model"}),
    "llama_backend": frozenset({"model"}),
    "embedder": frozenset({"model"}),
}

# What each marker allows, in the guard's words.
ALLOWS = {
    "process": "start a process",
    "server": "listen on a socket",
    "model": "load the bundled model",
}


def tier_markers(path: Path, fixtures: list[str]) -> set[str]:
    """The markers a test at `path` using `fixtures` gets from its folders and its fixtures."""
    found: set[str] = set()
    relative = path.resolve().relative_to(TESTS).parts[:-1]
    for depth in range(1, len(relative) + 1):
        found |= FOLDER_MARKERS.get("/".join(relative[:depth]), frozenset())
    for name in fixtures:
        found |= FIXTURE_MARKERS.get(name, frozenset())
    return found


def listed_slow() -> frozenset[str]:
    """The node ids of tests/slow_tests.txt."""
    return frozenset(SLOW_LIST.read_text(encoding="utf-8").split()) if SLOW_LIST.is_file() else frozenset()


def mark_tiers(items: list[pytest.Item], *, slow: frozenset[str] | None = None) -> None:
    """Add the folder and fixture markers to every item, `slow` to those of the census (`slow`:
    node ids, tests/slow_tests.txt unless given), and `fast` to those left without any."""
    slow = listed_slow() if slow is None else slow
    for item in items:
        fixtures = list(getattr(item, "fixturenames", ()))
        for name in sorted(tier_markers(Path(str(item.path)), fixtures)):
            item.add_marker(name)
        if item.nodeid in slow:
            item.add_marker(SLOW)
        if not {mark.name for mark in item.iter_markers()} & NOT_FAST:
            item.add_marker(FAST)


class TierViolation(AssertionError):
    """A test did what its markers do not allow."""


def _refusal(test: str, marker: str) -> Callable[..., Any]:
    def refuse(*args: object, **kwargs: object) -> Any:
        raise TierViolation(
            f"{test} tried to {ALLOWS[marker]} without the `{marker}` marker: mark it "
            f"(@pytest.mark.{marker}), or the folder or fixture it comes from (tests/tiers.py)"
        )

    return refuse


def _model_refusal(test: str, original: Callable[..., None]) -> Callable[..., None]:
    """LlamaCppBackend's constructor refused for the bundled model or a file as large as a model;
    a small file (a test of the error a file that is no model gives) is let through: llama.cpp
    refuses it before any model loads."""
    refuse = _refusal(test, "model")

    def guarded(self: object, model: str | Path | None = None, **kwargs: Any) -> None:
        if model is None or _model_sized(Path(model)):
            refuse()
        original(self, model, **kwargs)

    return guarded


SMALLEST_MODEL = 1 << 20  # bytes; the bundled SmolLM2-135M is about a hundred times that


def _model_sized(path: Path) -> bool:
    try:
        return path.stat().st_size >= SMALLEST_MODEL
    except OSError:
        return False


@contextmanager
def guarded(test: str, allowed: set[str]) -> Iterator[None]:
    """Within the block, what `allowed` does not name refuses to happen (see the module's text)."""
    with ExitStack() as stack:
        if "process" not in allowed:
            refuse = _refusal(test, "process")
            stack.enter_context(mock.patch.object(subprocess.Popen, "_execute_child", refuse))
            stack.enter_context(mock.patch.object(_posixsubprocess, "fork_exec", refuse))  # multiprocessing
            for name in ("fork", "forkpty", "system", "posix_spawn", "posix_spawnp"):
                stack.enter_context(mock.patch.object(os, name, refuse))
        if "server" not in allowed:
            stack.enter_context(mock.patch.object(socket.socket, "listen", _refusal(test, "server")))
        if "model" not in allowed:
            from studio.judges import embedder, llamacpp_backend

            backend = llamacpp_backend.LlamaCppBackend
            stack.enter_context(mock.patch.object(backend, "__init__", _model_refusal(test, backend.__init__)))
            stack.enter_context(mock.patch.object(embedder, "_load", _refusal(test, "model")))
        yield


def allowed_for(item: pytest.Item) -> set[str]:
    """What the guard lets `item` do: its markers (`terminal` and `postgres` start processes)."""
    names = {mark.name for mark in item.iter_markers()}
    if names & {"terminal", "postgres"}:
        names.add("process")
    return names & set(ALLOWS)
