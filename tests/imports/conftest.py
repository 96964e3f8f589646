"""Shared helpers for the import tests: the real `studio` CLI on a project file in tmp_path."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import Studio, cli
from typer.testing import Result

LISTINGS = ("qrels", "runs", "topics", "banks")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "p.duckdb"


@pytest.fixture
def studio(db: Path) -> Studio:
    """Run `studio --db <db> ARGS…` in-process and return its Result."""

    def invoke(*args: object) -> Result:
        return cli(db, *args)

    return invoke


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str, str | bytes], Path]:
    """Write text (UTF-8) or bytes to a file in tmp_path and return its path."""

    def write_file(name: str, content: str | bytes) -> Path:
        path = tmp_path / name
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        return path

    return write_file


@pytest.fixture
def listings(studio: Studio) -> Callable[[], dict[str, Any]]:
    """What `studio list qrels|runs|topics|banks --format json` print, parsed."""

    def snapshot() -> dict[str, Any]:
        shown: dict[str, Any] = {}
        for what in LISTINGS:
            result = studio("list", what, "--format", "json")
            assert result.exit_code == 0, result.output
            shown[what] = json.loads(result.stdout)
        return shown

    return snapshot


LOADED = [
    ("topics", "topics.tsv", "q1\tfirst topic\nq2\tsecond topic\n"),
    ("docs", "docs.tsv", "d1\tone\nd2\ttwo\nd3\tthree\n"),
    ("run", "base.run", "q1 Q0 d1 1 3 base\nq1 Q0 d2 2 2 base\nq2 Q0 d3 1 1 base\n"),
    ("qrels", "human.txt", "q1 0 d1 2\nq1 0 d2 0\nq2 0 d3 1\n"),
    ("bank", "nuggets.tsv", "q1_1\tA nugget\tvital\nq2_1\tAnother\tokay\n"),
]


@pytest.fixture(scope="module")
def loaded_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A project file holding topics, documents, a run, a label set and a bank, built once."""
    folder = tmp_path_factory.mktemp("loaded")
    template = folder / "p.duckdb"
    for command, name, content in LOADED:
        (folder / name).write_text(content, encoding="utf-8")
        result = cli(template, "import", command, folder / name)
        assert result.exit_code == 0, result.output
    shown: dict[str, Any] = {}
    for what in LISTINGS:
        result = cli(template, "list", what, "--format", "json")
        shown[what] = json.loads(result.stdout)
    assert all(shown[what] for what in LISTINGS)
    return template, shown


@pytest.fixture
def loaded(loaded_template: tuple[Path, dict[str, Any]], db: Path) -> dict[str, Any]:
    """This test's project file, a copy of the loaded template; returns its listings."""
    template, shown = loaded_template
    shutil.copyfile(template, db)
    return shown
