"""Helpers every test folder may import: running a judge to its end, the `studio` command line
in-process, and the one value of a SQL query."""

from __future__ import annotations

import functools
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import typer.main
import typer.testing
from typer._click import Command
from typer.testing import CliRunner, Result

from studio.cli.app import app
from studio.domain.judging import JudgeConfig, JudgeProgress, JudgeSummary
from studio.judges.backend import Backend
from studio.services.judging.run import run_judge
from studio.store import Database

if TYPE_CHECKING:
    # For the annotation only: imported at run time here, it made duckdb's bindings report
    # leaked objects when the test process exits.
    from studio.store import Connection

# The type of a test's `studio(*args)`: the command line on that test's project file.
Studio = Callable[..., Result]

T = TypeVar("T")


def judge_all(
    db: Database,
    config: JudgeConfig,
    backend: Backend | None = None,
    *,
    stale_only: bool = False,
    progress: list[JudgeProgress] | None = None,
) -> JudgeSummary:
    """Run `run_judge` to its end and return its summary; its progress events are appended to
    `progress` when given. Without `backend`, the one `config` names is made."""
    summary = None
    for event in run_judge(db, config, backend, stale_only=stale_only):
        if isinstance(event, JudgeSummary):
            summary = event
        elif progress is not None:
            progress.append(event)
    assert summary is not None, "run_judge ended without a summary"
    return summary


@functools.cache
def _studio_command() -> Command:
    return typer.main.get_command(app)


def _command_of(typer_instance: typer.Typer) -> Command:
    """The click command of a Typer app: `studio`'s built once per test process, as the `studio`
    program builds it once per run (typer's CliRunner builds it afresh for every invocation, a
    third of a second each); any other app's built as typer builds it."""
    return _studio_command() if typer_instance is app else typer.main.get_command(typer_instance)


typer.testing._get_command = _command_of  # type: ignore[attr-defined]  # CliRunner.invoke asks it


def cli(
    db: Path | str | None,
    *args: object,
    input: str | bytes | None = None,
    env: Mapping[str, str | None] | None = None,
    catch_exceptions: bool = False,
) -> Result:
    """`studio --db DB ARGS…` in-process (each argument given as `str(arg)`; no `--db` when `db`
    is None): typer's Result, with stdout and stderr apart.

    An exception the command does not turn into an exit code propagates, with its traceback,
    unless `catch_exceptions`; `input` and `env` go to CliRunner.invoke.
    """
    project = [] if db is None else ["--db", str(db)]
    return CliRunner().invoke(app, [*project, *map(str, args)], input=input, env=env, catch_exceptions=catch_exceptions)


def scalar(con: Connection, sql: str, params: list[object] | None = None) -> Any:
    """The first value of the first row of a query that must return a row."""
    row = con.execute(sql, params).fetchone()
    assert row is not None, f"no row: {sql}"
    return row[0]


def known(value: T | None) -> T:
    """A result's value the test expects to be there (a figure the result may give as None)."""
    assert value is not None
    return value


def copy_project(template: Path, folder: Path, name: str = "p.duckdb") -> Path:
    """A fresh copy of a project file for one test to change."""
    target = folder / name
    shutil.copyfile(template, target)
    return target


class WriteFile(Protocol):
    """Writes bytes to a fresh file (gzipped when asked) and returns its path (`write_file` fixture)."""

    def __call__(self, data: bytes, compress: bool) -> Path: ...
