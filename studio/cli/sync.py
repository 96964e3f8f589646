"""`studio sync`: this member's new events up to the team's server, the others' down."""

from __future__ import annotations

import typer

from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.options import FormatOption
from studio.cli.output import OutputFormat, emit_object, stderr_console

commands = typer.Typer()


@commands.command("sync")
@handles_errors
def sync_command(ctx: typer.Context, fmt: FormatOption = OutputFormat.table) -> None:
    """Push this member's events not on the team's server yet (in the order they were made) and
    apply the others'. Offline, it says so and loses nothing: the events wait for the next sync
    (exit 0). Rejected by the server (its login refused by pg_hba.conf or the password, a member
    whose role lost its rights), it says why and exits 1: nothing was exchanged.
    A pulled event that fails the gates of a local command is quarantined (named on stderr, never
    applied; `studio team status` lists them) and the events after it go on."""
    with open_project(ctx) as project:
        done = project.sync()
    if done["offline"]:
        stderr_console().print(
            f"offline: {done.get('error', 'the server cannot be reached')}; {done['waiting']} events wait",
            markup=False,
            highlight=False,
        )
    for conflict in done["conflicts"]:
        stderr_console().print(f"conflict: {conflict}", markup=False, highlight=False)
    for refused in done["quarantined"]:
        stderr_console().print(f"quarantined: {refused}", markup=False, highlight=False)
    if fmt is OutputFormat.table:  # the reason went to stderr whole: no table cell as wide as a driver's message
        counted = {"conflicts": len(done["conflicts"]), "quarantined": len(done["quarantined"])}
        emit_object({k: v for k, v in done.items() if k not in {*counted, "error"}} | counted, fmt)
    else:
        emit_object(done, fmt)
