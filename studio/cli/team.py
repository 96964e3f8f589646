"""`studio team publish|join|status`: a team on one collection, sharing its events through PostgreSQL.

The connection comes from libpq's own means: a connection string or `service=NAME`, PGSERVICE,
~/.pgpass, the PG* environment variables, sslmode. A connection string holding a password is
refused: the project file keeps the string.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from studio.cli.context import open_project, options
from studio.cli.errors import handles_errors
from studio.cli.options import FormatOption
from studio.cli.output import OutputFormat, Part, emit_object, emit_parts, emit_records, stdout_writes
from studio.services.project import Project

commands = typer.Typer(
    name="team",
    help="Share the project's events with a team through PostgreSQL (`studio sync` exchanges them).",
    no_args_is_help=True,
)

Conninfo = Annotated[
    str, typer.Argument(help="libpq connection string or service=NAME (no password: ~/.pgpass, PGPASSWORD).")
]


@commands.command("publish")
@handles_errors
def publish_command(
    ctx: typer.Context,
    to: Annotated[
        str,
        typer.Option("--to", help="The team's database: libpq connection string or service=NAME (no password in it)."),
    ],
    members: Annotated[str, typer.Option("--members", help="Comma-separated PostgreSQL roles: alice,bob,…")],
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Publish the project to the team's database as the coordinator (the connection's role): its
    data becomes the team's base, the members may join and append their events."""
    with open_project(ctx) as project:
        done = project.publish_team(to, members.split(","))
    emit_object({**done, "members": ", ".join(done["members"])} if fmt is OutputFormat.table else done, fmt)


@commands.command("join")
@handles_errors
def join_command(ctx: typer.Context, conninfo: Conninfo, fmt: FormatOption = OutputFormat.table) -> None:
    """Make the project file (--db) from the team's published project; the member is the
    connection's role. The team's events so far are pulled at once."""
    path = Project.locate(options(ctx).project_file)
    done = Project.join_team(path, conninfo, wait=options(ctx).wait)
    emit_object(done, fmt, title=f"Joined as {done['member']}")


@commands.command("status")
@handles_errors
def status_command(ctx: typer.Context, fmt: FormatOption = OutputFormat.table) -> None:
    """The team as this copy knows it (no server asked): member, how the last sync ended (synced,
    offline, rejected by the server) and why, this member's events waiting to go up, the events
    shared per member, and the pulled events it quarantined (never applied)."""
    with open_project(ctx) as project:
        found = project.team_status()
    if found is None:
        emit_object({"team": None}, fmt)
        return
    if fmt is not OutputFormat.table:
        emit_object(found, fmt)
        return
    shared = ", ".join(f"{member} {count}" for member, count in found["shared"].items()) or "none"
    table = {k: v for k, v in found.items() if k not in ("last_error", "quarantined")}
    outcome = found["outcome"] or "never synced"
    table |= {"outcome": outcome, "shared": shared, "quarantined": len(found["quarantined"])}
    emit_parts(table | {"held": list(found["quarantined"])}, fmt, title="Team", parts=QUARANTINE_PART)
    if found["last_error"]:
        said = "rejected by the server" if found["outcome"] == "rejected" else found["outcome"] or "failed"
        with stdout_writes():  # its own line, not a table's cell: a driver's message is long
            sys.stdout.write(f"last error ({said}, {found['last_attempt']}): {found['last_error']}\n")


QUARANTINE_PART = (Part("held", "Quarantined events (never applied)", optional=True),)


@commands.command("quarantine")
@handles_errors
def quarantine_command(ctx: typer.Context, fmt: FormatOption = OutputFormat.table) -> None:
    """Every event the team's copies quarantined, as each reported it to the server: who found it,
    whose event, why (the coordinator's view; asks the server)."""
    with open_project(ctx) as project:
        found = project.team_quarantine()
    emit_records(
        list(found), fmt, title="Quarantined events", columns=("reporter", "member", "seq", "reason", "found_at")
    )
