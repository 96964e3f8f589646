"""`studio export qrels|bank|leaderboard … --out FILE` (`--out -` writes to stdout)."""

from __future__ import annotations

from typing import Annotated

import typer

from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.output import stderr_console
from studio.formats.bank_writers import BankFormat
from studio.services.exports.banks import export_bank as write_bank
from studio.services.exports.delivery import ExportReport
from studio.services.exports.labels import export_judgments as write_judgments
from studio.services.exports.labels import export_qrels as write_qrels
from studio.services.exports.leaderboard import TableFormat
from studio.services.exports.leaderboard import export_leaderboard as write_leaderboard
from studio.services.rubric.graded_files import export_graded as write_graded

commands = typer.Typer(
    name="export",
    help="Write label sets, test banks and leaderboards to files (each written whole or not at all).",
    no_args_is_help=True,
)

Out = Annotated[
    str, typer.Option("--out", "-o", help="Output file ('-' for stdout; a .gz name is gzipped).", show_default=False)
]


def _report(report: ExportReport) -> None:
    console = stderr_console()
    for warning in report.warnings:
        console.print(f"warning: {warning}", markup=False)
    console.print(report.summary(), markup=False)


@commands.command("qrels")
@handles_errors
def export_qrels(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Label set to export.", show_default=False)],
    out: Out,
) -> None:
    """A label set as TREC qrels `qid 0 docid grade` (fractional grades written exactly)."""
    with open_project(ctx) as project:
        _report(write_qrels(project.db, name, out))


@commands.command("judgments")
@handles_errors
def export_judgments(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Label set made by a judge.", show_default=False)],
    out: Out,
) -> None:
    """A judge's newest run as UMBRELA-style judgment JSONL (prompt, raw output, judgment)."""
    with open_project(ctx) as project:
        _report(write_judgments(project.db, name, out))


@commands.command("graded")
@handles_errors
def export_graded(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Label set of a rubric judge.", show_default=False)],
    out: Out,
    ref: Annotated[str | None, typer.Option(help="Reference labels written beside the grades.")] = "human",
    min_grade: Annotated[float, typer.Option(help="correctAnswered at grade ≥ this (Rubric files).")] = 4.0,
) -> None:
    """Item grades: a Rubric-workbench graded file (exam, subtopic) or nuggetizer assignments (nugget-assign)."""
    with open_project(ctx) as project:
        _report(write_graded(project.db, name, out, ref=ref, min_grade=min_grade))


@commands.command("bank")
@handles_errors
def export_bank(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Test bank to export.", show_default=False)],
    out: Out,
    fmt: Annotated[
        BankFormat | None,
        typer.Option(
            "--as",
            help="File format (default: tsv for a .tsv name, else the JSON layout the bank was imported in,"
            " else rubric).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """A test bank as Rubric-workbench JSONL (`items`, or the older `questions` as rubric-questions),
    nuggetizer JSONL or TSV qid_n<TAB>text<TAB>importance."""
    with open_project(ctx) as project:
        _report(write_bank(project.db, name, out, fmt))


@commands.command("leaderboard")
@handles_errors
def export_leaderboard(
    ctx: typer.Context,
    qrels: Annotated[str, typer.Option("--qrels", help="Label set to evaluate with.", show_default=False)],
    out: Out,
    measure: Annotated[
        list[str] | None,
        typer.Option("--measure", "-m", help="Measures (repeat); default nDCG@10 AP P@10 RR R@100."),
    ] = None,
    fmt: Annotated[
        TableFormat | None,
        typer.Option("--as", help="File format (default: from the name, .tsv/.csv, else json).", show_default=False),
    ] = None,
    per_topic: Annotated[bool, typer.Option("--per-topic", "-q", help="One row per topic too.")] = False,
    complete: Annotated[
        bool, typer.Option("--complete", "-c", help="Average over every labelled topic (trec_eval -c).")
    ] = False,
) -> None:
    """The rows of `studio eval` (run, measure, value, topics) as JSON, TSV or CSV."""
    with open_project(ctx) as project:
        _report(write_leaderboard(project.engine, qrels, measure, out, fmt, per_topic=per_topic, complete=complete))
