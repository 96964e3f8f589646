"""A test of an optional extra skips, saying how to install it, where the extra is absent, and
fails instead under STUDIO_REQUIRE_EXTRAS=1 (`make check`, which installs them all); hidden
extras (STUDIO_HIDE_EXTRAS) look absent to the studio as they would uninstalled."""

from __future__ import annotations

import importlib
import importlib.util
import sys

import extras
import pytest

from studio.judges.embedder import missing_embedding_modules


@pytest.fixture
def team_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    """psycopg as though not installed, for this test only."""
    monkeypatch.setattr(sys, "meta_path", [extras._Hidden(extras.EXTRAS["team"]), *sys.meta_path])
    for name in [m for m in sys.modules if m == "psycopg" or m.startswith("psycopg.")]:
        monkeypatch.delitem(sys.modules, name)


@pytest.mark.usefixtures("team_hidden")
def test_a_hidden_extra_cannot_be_imported_or_found() -> None:
    with pytest.raises(ModuleNotFoundError, match="hidden"):
        importlib.import_module("psycopg")
    with pytest.raises(ModuleNotFoundError):
        importlib.util.find_spec("psycopg")
    assert extras.missing("team") == ["psycopg"]
    assert extras.skip_reason("team") == "the team extra is not installed (psycopg missing): pip install -e '.[team]'"


def test_the_studio_sees_a_hidden_embeddings_extra_as_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "meta_path", [extras._Hidden(extras.EXTRAS["embeddings"]), *sys.meta_path])
    for name in [m for m in sys.modules if m.split(".")[0] in {"torch", "sentence_transformers"}]:
        monkeypatch.delitem(sys.modules, name)
    assert set(missing_embedding_modules()) == {"torch", "sentence_transformers"}


@pytest.mark.usefixtures("team_hidden")
def test_a_missing_extra_skips_with_its_install_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extras, "REQUIRE", False)
    with pytest.raises(pytest.skip.Exception, match=r"pip install -e '\.\[team\]'"):
        extras.skip(extras.skip_reason("team"))


@pytest.mark.usefixtures("team_hidden")
def test_a_missing_extra_fails_where_every_extra_is_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extras, "REQUIRE", True)
    with pytest.raises(pytest.fail.Exception, match="STUDIO_REQUIRE_EXTRAS=1, yet the team extra"):
        extras.skip(extras.skip_reason("team"))


def test_skips_and_import_errors_are_told_apart_by_extra() -> None:
    assert extras.skipped_for_an_extra("the irds extra is not installed: pip install -e '.[irds]'") == "irds"
    assert extras.skipped_for_an_extra("tmux is not installed") is None  # no extra: make check cannot install it
    assert extras.extra_of_missing_module(ModuleNotFoundError("x", name="psycopg.rows")) == "team"
    assert extras.extra_of_missing_module(ModuleNotFoundError("x", name="fastapi")) == "server"
    assert extras.extra_of_missing_module(ModuleNotFoundError("x", name="llama_cpp")) is None  # no extra's
    assert extras.extra_of_missing_module(ModuleNotFoundError("x", name="pandas")) is None
    assert extras.extra_of_missing_module(ImportError("x")) is None
