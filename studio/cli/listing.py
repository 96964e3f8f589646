"""`studio list [topics|docs|qrels|runs|banks|responses|judges|leaderboards]`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from typing import Annotated, Any

import typer

from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.options import FormatOption
from studio.cli.output import OutputFormat, emit_object, emit_records
from studio.domain.views import Overview
from studio.services.project import Project


class Listing(StrEnum):
    topics = "topics"
    docs = "docs"
    qrels = "qrels"
    runs = "runs"
    banks = "banks"
    responses = "responses"
    judges = "judges"
    leaderboards = "leaderboards"


LISTINGS: dict[Listing, Callable[[Project], Sequence[Mapping[str, Any]]]] = {
    Listing.topics: Project.topics,
    Listing.docs: Project.documents,
    Listing.qrels: Project.label_sets,
    Listing.runs: Project.runs,
    Listing.banks: Project.banks,
    Listing.responses: Project.responses,
    Listing.judges: Project.judge_runs,
    Listing.leaderboards: Project.leaderboards,
}


# The judge runs' columns worth comparing side by side; JSON, CSV and TSV keep every field (the
# prompt and its hash, the pool, start and end times, the process as pid@host). The test of
# tables holds the table to these.
TABLE_COLUMNS = {
    Listing.judges: [
        "run",
        "label_set",
        "state",
        "method",
        "backend",
        "model",
        "pairs",
        "calls",
        "cache_hits",
        "failures",
    ],
}


# The overview's tables after the counts: (title, field of Overview, columns). The full records,
# sources included, are in `studio list --format json` and in each `studio list WHAT`.
OVERVIEW_SECTIONS = (
    ("Label sets", "label_sets", ("name", "kind", "topics", "pairs", "relevant", "events")),
    ("Runs", "runs", ("name", "topics", "rows")),
    ("Banks", "banks", ("name", "topics", "items", "questions", "nuggets", "vital", "okay")),
    ("Answers", "responses", ("system", "topics", "mean_chars")),
    ("Judge runs", "judges", ("run", "label_set", "state", "method", "backend", "model", "pairs", "failures")),
    ("Imported leaderboards", "leaderboards", ("name", "runs", "measures", "topics", "layout")),
)


def print_overview(view: Overview, fmt: OutputFormat) -> None:
    """Counts, then the label sets, runs and banks (one JSON object with --format json)."""
    if fmt is OutputFormat.json:
        emit_object(view.as_dict(), fmt)
        return
    emit_records([{"what": k, "count": v} for k, v in view.counts.items()], fmt, title="Project")
    if fmt is not OutputFormat.table:
        return
    for title, field, columns in OVERVIEW_SECTIONS:
        records = getattr(view, field)
        if records:
            typer.echo("")
            emit_records(records, fmt, title=title, columns=columns)


commands = typer.Typer()


@commands.command("list")
@handles_errors
def list_command(
    ctx: typer.Context,
    what: Annotated[Listing | None, typer.Argument(help="What to list (default: an overview).")] = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """What the project holds.

    A table shows every field of a listing but one: the judge runs' table leaves out their prompt,
    pool, times and process, which JSON, CSV and TSV give."""
    with open_project(ctx) as project:
        if what is None:
            print_overview(project.overview(topics=fmt is OutputFormat.json), fmt)
        else:
            emit_listing(project, what, fmt)


def emit_listing(project: Project, what: Listing, fmt: OutputFormat) -> None:
    """One listing of `studio list WHAT` (also `studio judges list`)."""
    emit_records(
        LISTINGS[what](project),
        fmt,
        title=what.value.capitalize(),
        columns=TABLE_COLUMNS.get(what) if fmt is OutputFormat.table else None,
    )
