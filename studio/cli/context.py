"""The state every command shares: which project file the user asked for."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import typer

from studio.services.locations import project_path
from studio.services.project import Project


@dataclass
class Options:
    db: Path | None = None


def options(ctx: typer.Context) -> Options:
    found = ctx.find_root().obj
    return found if isinstance(found, Options) else Options()


def open_project(ctx: typer.Context) -> Project:
    return Project.open(project_path(options(ctx).db))
