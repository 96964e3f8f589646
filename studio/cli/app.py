"""The `studio` command line.

Every command module defines its own `typer.Typer` named `commands`. A module's Typer with a name
(`import`, `export`, `bank`, `judges`) is a command group; one without a name gives its commands
to the top level. `COMMAND_MODULES` says which module holds which top-level command, in the order
of `studio --help`: a command's module is imported when the command runs (or `--help` lists it),
so `studio list` loads the listing and not the audits, the judges or numpy (tests/
test_startup_imports.py pins what it loads; `benchmarks/bench_startup.py` times it).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from studio.cli.context import Options
from studio.cli.errors import reported_errors
from studio.cli.output import silence_arithmetic_warnings
from studio.domain.project_file import DEFAULT_WAIT_SECONDS
from studio.domain.settings import STUDIO_DB, STUDIO_READ_ONLY, STUDIO_WAIT

# Module of studio/cli/ -> the top-level commands it holds (a group's name, or its merged commands).
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "launch": ("demo", "tui"),
    "init": ("init",),
    "imports": ("import",),
    "listing": ("list",),
    "check": ("check", "refresh"),
    "doctor": ("doctor",),
    "evaluate": ("eval", "correlate", "agree", "disagreements", "label", "undo", "history"),
    "answers": ("answers",),  # answers [compare | significance | tournament | runs]
    "validate": ("validate",),
    "embeddings": ("fd",),
    "judge": ("judge", "derive"),
    "ensemble": ("ensemble",),
    "calibrate": ("calibrate",),
    "judges": ("judges",),
    "meta": ("compare", "probe"),
    "sensitivity": ("sensitivity",),
    "significance": ("significance",),
    "estimate": ("estimate",),
    "report": ("report",),
    "export": ("export",),
    "bank": ("bank",),
    "audit": ("audit",),
    "team": ("team",),
    "sync": ("sync",),
    "assess": ("assess",),
}


def module_commands(module: str) -> typer.Typer:
    """The `commands` Typer of `studio.cli.<module>`, imported now."""
    found = importlib.import_module(f"studio.cli.{module}").commands
    assert isinstance(found, typer.Typer), module
    return found


@cache
def built_commands(module: str) -> dict[str, Any]:
    """The click commands a module gives the top level, built as typer builds a sub-Typer it is
    given: a named Typer as its group, an unnamed one's commands one by one."""
    commands = module_commands(module)
    group = typer.main.get_group(commands)
    name = commands.info.name
    return {name: group} if isinstance(name, str) else dict(group.commands)


class LazyCommands(Mapping[str, Any]):
    """The top level's commands by name, each module imported on the first look at one of its own."""

    def __init__(self) -> None:
        self.modules = {name: module for module, names in COMMAND_MODULES.items() for name in names}

    def __getitem__(self, name: str) -> Any:
        return built_commands(self.modules[name])[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.modules)

    def __len__(self) -> int:
        return len(self.modules)


class StudioGroup(TyperGroup):
    """The root group: its commands are `LazyCommands`, listed without being imported."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = LazyCommands()  # type: ignore[assignment]  # read-only: nothing adds commands here

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)


app = typer.Typer(
    name="studio",
    cls=StudioGroup,
    help="Relevance Assessment Studio: audit LLM relevance labels against people's.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        from studio import __version__

        typer.echo(f"studio {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    ctx: typer.Context,
    db: Annotated[
        Path | None,
        typer.Option("--db", envvar=STUDIO_DB, help="Project file (default: ./studio.duckdb)."),
    ] = None,
    wait: Annotated[
        float,
        typer.Option(
            "--wait",
            envvar=STUDIO_WAIT,
            min=0.0,
            metavar="SECONDS",
            help="How long to wait for the project file while another studio process writes to it.",
        ),
    ] = DEFAULT_WAIT_SECONDS,
    read_only: Annotated[
        bool,
        typer.Option(
            "--read-only",
            envvar=STUDIO_READ_ONLY,
            help="Open the project file read-only (as when it or its folder cannot be written): writes are refused.",
        ),
    ] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    silence_arithmetic_warnings()
    source = ctx.get_parameter_source("db")  # typer's own click: its enum, told by name
    from_environment = source is not None and source.name == "ENVIRONMENT"
    ctx.obj = Options(project_file=db, project_from_environment=from_environment, wait=wait, read_only=read_only)


def run() -> None:
    """The `studio` program. Output refused outside a command (`--help`, `--version` into a full
    disk) ends as it does inside one (see `cli/errors.py`)."""
    try:
        with reported_errors():
            app()
    except typer.Exit as done:
        sys.exit(done.exit_code)
