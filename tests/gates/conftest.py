"""The gates' fixtures: a copy of the sample project, the command line on it, and its fingerprint."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import Studio, cli
from typer.testing import Result

from studio import Project

# (rows, digest of the rows) of every table of a project file.
Fingerprint = dict[str, tuple[int, str]]


def fingerprint(path: Path) -> Fingerprint:
    """How many rows every table of the project holds and a digest of them all, to tell whether a
    command changed anything at all."""
    with Project.open(path) as project:
        con = project.db.cursor()
        tables = [
            name
            for (name,) in con.execute(
                "SELECT table_name FROM duckdb_tables() WHERE NOT temporary ORDER BY table_name"
            ).fetchall()
        ]
        found: Fingerprint = {}
        for table in tables:
            rows = "CAST(r AS VARCHAR)"
            row = con.execute(
                f"SELECT count(*), coalesce(md5(string_agg({rows}, chr(10) ORDER BY {rows})), '') FROM \"{table}\" AS r"
            ).fetchone()
            assert row is not None
            found[table] = (int(row[0]), str(row[1]))
    return found


@pytest.fixture
def project(sample: Path) -> Path:
    """This test's copy of the sample project."""
    return sample


@pytest.fixture
def studio(project: Path) -> Studio:
    """`studio --db <project> ARGS…` in-process; an exception it lets through fails the test."""

    def invoke(*args: object) -> Result:
        return cli(project, *args)

    return invoke


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str, str | bytes], Path]:
    """Write text (UTF-8) or bytes to a file of that name in a fresh folder; its path."""
    folder = tmp_path / "input"
    folder.mkdir()

    def write_file(name: str, content: str | bytes) -> Path:
        path = folder / name
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        return path

    return write_file


def flat(text: str) -> str:
    """Text with the frame and line breaks of an error box taken out (blanks run into one)."""
    return re.sub(r"[\s\u2502]+", " ", text)


def refused_saying(result: Result, *fragments: str) -> None:
    """The command was refused (exit 2, no traceback), its error saying each of `fragments`."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in flat(result.stderr), result.stderr
