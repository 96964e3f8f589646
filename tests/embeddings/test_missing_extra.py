"""Without the `embeddings` extra (sentence-transformers, torch and the bundled model), every door
that needs the embedder exits 2 with one line saying how to install it, and leaves the project as
it was. The extra's absence is made in process: importing a module set to None in `sys.modules`
fails, and so does finding it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import cli

from studio import Project
from studio.domain.errors import UsageError
from studio.judges.embedder import INSTALL_EMBEDDINGS, Embedder, missing_embedding_modules

INSTALL_LINE = "pip install 'relevance-assessment-studio[embeddings]'"


@pytest.fixture()
def without_sentence_transformers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)


def label_sets(path: Path) -> list[str]:
    with Project.open(path, create=False) as project:
        return [row["name"] for row in project.label_sets()]


def assert_refused_with_the_install_line(code: int, stderr: str) -> None:
    assert code == 2
    assert stderr.strip().count("\n") == 0, stderr
    assert INSTALL_LINE in stderr
    assert "sentence_transformers" in stderr


@pytest.mark.usefixtures("without_sentence_transformers")
@pytest.mark.parametrize(
    "args",
    [
        ["judge", "--method", "embedding", "--name", "emb", "--topic", "1001"],
        ["judge", "--method", "embedding", "--name", "emb", "--model", "some/folder"],
        ["fd", "--qrels", "human"],
    ],
    ids=["judge", "judge-with-model", "fd"],
)
def test_a_command_that_embeds_exits_2_naming_the_extra(sample: Path, args: list[str]) -> None:
    before = label_sets(sample)
    result = cli(sample, *args)
    assert_refused_with_the_install_line(result.exit_code, result.stderr)
    assert result.stdout == ""
    assert label_sets(sample) == before


@pytest.mark.usefixtures("without_sentence_transformers")
def test_the_report_with_embeddings_exits_2_and_writes_nothing(sample: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    result = cli(sample, "report", "--out", out, "--ref", "human", "--resamples", "10", "--with-embeddings")
    assert_refused_with_the_install_line(result.exit_code, result.stderr)
    assert not out.exists()


def test_a_missing_torch_is_named_too(monkeypatch: pytest.MonkeyPatch, sample: Path) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)
    result = cli(sample, "fd", "--qrels", "human")
    assert result.exit_code == 2
    assert "torch" in result.stderr and INSTALL_LINE in result.stderr


def test_missing_modules_are_found_without_importing_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    monkeypatch.setitem(sys.modules, "torch", None)
    assert missing_embedding_modules() == ["sentence_transformers", "torch"]
    with pytest.raises(UsageError, match="embeddings extra") as refused:
        Embedder()
    assert INSTALL_EMBEDDINGS in str(refused.value)


def test_the_install_line_names_the_published_extra() -> None:
    assert INSTALL_EMBEDDINGS == INSTALL_LINE
