"""One family of errors meant for people (`StudioError`), and the exit code each kind gives."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from studio.cli.app import app
from studio.cli.errors import ExitCode, exit_code, reported_errors
from studio.domain.errors import InputError, OutputError, ProjectError, StudioError, UsageError
from studio.store.database import Database
from studio.store.migrations import LATEST_VERSION

KINDS: list[type[StudioError]] = [InputError, UsageError, ProjectError, OutputError]


def test_every_kind_derives_from_the_base_and_keeps_its_builtin_class() -> None:
    assert all(issubclass(kind, StudioError) for kind in KINDS)
    # `except ValueError` / `except RuntimeError` code written before the base existed still works.
    assert issubclass(InputError, ValueError) and issubclass(UsageError, ValueError)
    assert issubclass(ProjectError, RuntimeError) and not issubclass(ProjectError, ValueError)


def test_every_kind_says_what_it_is_in_its_own_words() -> None:
    docs = [kind.__doc__ for kind in [StudioError, *KINDS]]
    assert all(doc and doc.strip() for doc in docs)
    assert len(set(docs)) == len(docs), "two error kinds share a docstring"


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (InputError("qrels.txt", 3, "grade 'x' is not a number"), ExitCode.BAD_INPUT),
        (UsageError("no label set named 'nope'"), ExitCode.BAD_INPUT),
        (ProjectError("cannot open project file p.duckdb"), ExitCode.RUNTIME_ERROR),
        (OutputError("cannot write to stdout: No space left on device"), ExitCode.RUNTIME_ERROR),
    ],
)
def test_each_kind_exits_with_its_code_and_one_line_on_stderr(
    error: StudioError,
    code: ExitCode,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(typer.Exit) as raised, reported_errors():
        raise error
    assert raised.value.exit_code == code
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == f"error: {error}"


def test_a_kind_without_its_own_code_is_a_runtime_error() -> None:
    class Unforeseen(StudioError):
        """A kind added later without an exit code of its own."""

    assert exit_code(Unforeseen("?")) == ExitCode.RUNTIME_ERROR


def test_other_exceptions_are_bugs_and_pass_through() -> None:
    with pytest.raises(KeyError), reported_errors():
        raise KeyError("a bug keeps its traceback")


def test_a_closed_pipe_ends_quietly_with_the_status_of_sigpipe(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(typer.Exit) as raised, reported_errors():
        raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))
    assert raised.value.exit_code == ExitCode.READER_GONE
    assert int(ExitCode.READER_GONE) == 141
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG])
def test_a_write_the_system_refused_is_one_line_and_exit_1(code: int, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(typer.Exit) as raised, reported_errors():
        raise OSError(code, os.strerror(code), "report.html")
    assert raised.value.exit_code == ExitCode.RUNTIME_ERROR
    assert capsys.readouterr().err == f"error: cannot write report.html: {os.strerror(code)}\n"


def test_any_other_os_error_is_a_bug_and_keeps_its_traceback() -> None:
    with pytest.raises(FileNotFoundError), reported_errors():
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), "gone")


def test_a_project_from_a_newer_studio_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "p.duckdb"
    database = Database(path)
    database.connection.execute("INSERT INTO schema_version (version) VALUES (?)", [LATEST_VERSION + 1])
    database.close()
    result = CliRunner().invoke(app, ["--db", str(path), "list"])
    assert result.exit_code == ExitCode.RUNTIME_ERROR
    assert "newer studio" in result.stderr and result.stdout == ""


def test_an_unknown_label_set_exits_2(tmp_path: Path) -> None:
    Database(tmp_path / "p.duckdb").close()
    result = CliRunner().invoke(app, ["--db", str(tmp_path / "p.duckdb"), "history", "--qrels", "nope"])
    assert result.exit_code == ExitCode.BAD_INPUT, result.stdout
    assert result.stderr.startswith("error: ") and "nope" in result.stderr
