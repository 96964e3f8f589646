"""`studio doctor`: what the studio needs and can use on this machine, and the project file's health.
Exit 0 when everything needed is there, 1 when a section failed (named on stderr)."""

from __future__ import annotations

import typer

from studio.cli.context import options
from studio.cli.errors import ExitCode, handles_errors
from studio.cli.options import FormatOption
from studio.cli.output import OutputFormat, emit_object, emit_records, stderr_console
from studio.domain.doctor_report import DoctorReport
from studio.services.project import Project

commands = typer.Typer()

STATUS_WIDTH = len("absent")


def print_report(report: DoctorReport) -> None:
    """The text report: one line per section (status, name, summary), its notes and fix below it."""
    width = max(len(section.name) for section in report.sections)
    indent = " " * (STATUS_WIDTH + width + 4)
    for section in report.sections:
        typer.echo(f"{section.status.value:<{STATUS_WIDTH}}  {section.name:<{width}}  {section.summary}")
        for note in section.notes:
            typer.echo(f"{indent}{note}")
        if section.fix:
            typer.echo(f"{indent}fix: {section.fix}")


@commands.command("doctor")
@handles_errors
def doctor_command(
    ctx: typer.Context,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Check the installation: Python, the studio, DuckDB, llama-cpp-python and its build, the
    default local model, the embeddings extra, the API's environment variables (names only), the
    TUI's keys (with the keymap file's remappings) and the project file's health (read-only; a
    missing project is said, not created), each with the command that fixes what is missing.
    Exit 1 when something needed is missing or broken."""
    chosen = options(ctx)
    report = Project.doctor(chosen.project_file, wait=chosen.wait)
    if fmt is OutputFormat.json:
        emit_object(report.as_dict(), fmt)
    elif fmt is OutputFormat.table:
        print_report(report)
    else:
        emit_records(
            [
                {k: v for k, v in s.as_dict().items() if k in ("name", "status", "summary", "fix")}
                for s in report.sections
            ],
            fmt,
        )
    if not report.ok:
        failed = report.failed
        stderr_console().print(
            f"{len(failed)} {'check' if len(failed) == 1 else 'checks'} failed: {', '.join(failed)}",
            markup=False,
            highlight=False,
        )
        raise typer.Exit(ExitCode.RUNTIME_ERROR)
