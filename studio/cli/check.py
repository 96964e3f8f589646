"""`studio check`: is the project file whole? Exit 0 when it is, 1 when a check found problems.
`studio refresh`: derive the derived label sets afresh from their sources."""

from __future__ import annotations

import typer

from studio.cli.context import open_project
from studio.cli.errors import ExitCode, handles_errors
from studio.cli.options import FormatOption
from studio.cli.output import OutputFormat, emit_object, emit_records, stderr_console
from studio.domain.check_report import CheckReport

commands = typer.Typer()


def print_report(report: CheckReport) -> None:
    """The text report: one line per check, the problems found under it, the judge runs' states."""
    typer.echo(f"project {report.project}")
    width = max(len(check.name) for check in report.checks)
    for check in report.checks:
        status = "ok  " if check.ok else "FAIL"
        found = f"{check.checked:,} checked" if check.ok else f"{check.problems:,} problems in {check.checked:,}"
        typer.echo(f"{status}  {check.name:<{width}}  {check.what} · {found}")
        for example in check.examples:
            typer.echo(f"      {example}")
        if check.problems > len(check.examples):
            typer.echo(f"      … and {check.problems - len(check.examples):,} more")
    states = ", ".join(f"{count} {state}" for state, count in report.judge_runs.items() if count)
    typer.echo(f"judge runs: {states or 'none'}")
    for note in report.notes:
        typer.echo(f"      {note}")


@commands.command("check")
@handles_errors
def check_command(
    ctx: typer.Context,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Check the project file: labels and bank items against their events, orphan rows, keys held
    twice, stored rankings, judge runs' states and counts, derived label sets against a fresh
    derivation. Exit 1 when a problem is found."""
    with open_project(ctx) as project:
        report = project.check()
    if fmt is OutputFormat.json:
        emit_object(report.as_dict(), fmt)
    elif fmt is OutputFormat.table:
        print_report(report)
    else:
        emit_records([{k: v for k, v in c.as_dict().items() if k != "examples"} for c in report.checks], fmt)
    if not report.ok:
        stderr_console().print(f"{report.problems:,} problems found", highlight=False)
        raise typer.Exit(ExitCode.RUNTIME_ERROR)


@commands.command("refresh")
@handles_errors
def refresh_command(
    ctx: typer.Context,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Derive every derived label set (ensembles, calibrations, bank scores) afresh from its sources.

    Edits, imports and judges keep them current as they write; this catches up what another
    program wrote, or what a judge killed before its end left behind. Exit 1 when a set cannot be
    derived from its sources now (it keeps its last labels)."""
    with open_project(ctx) as project:
        followed = project.refresh_derived()
    emit_object({"changed": followed.changed, "blocked": followed.blocked}, fmt, title="Derived label sets")
    if followed.blocked:
        raise typer.Exit(ExitCode.RUNTIME_ERROR)
