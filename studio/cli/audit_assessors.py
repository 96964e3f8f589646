"""`studio audit assign|agreement|adjudicate`: several assessors on one audit — the sample split
among them with a shared share, their agreement on it, and the adjudication of their conflicts."""

from __future__ import annotations

from typing import Annotated

import typer

from studio.cli import grades
from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.options import FormatOption, SeedOption
from studio.cli.output import OutputFormat, emit_object, emit_records
from studio.domain.names import check_name
from studio.domain.settings import STUDIO_PERSON

AuditName = Annotated[str, typer.Argument(help="The audit (also its gold label set's name).")]


def _names(text: str) -> list[str]:
    return [check_name(part.strip(), "assessor") for part in text.split(",")]


@handles_errors
def assign_command(
    ctx: typer.Context,
    audit: AuditName,
    assessors: Annotated[str, typer.Option("--assessors", help="Comma-separated names: alice,bob,…")],
    overlap: Annotated[
        float, typer.Option("--overlap", min=0.0, max=1.0, help="Share of the pairs given to two assessors.")
    ] = 0.0,
    seed: SeedOption = 0,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Split the audit's sample among named assessors, a share --overlap of it graded by two."""
    with open_project(ctx) as project:
        done = project.assign_audit(audit, _names(assessors), overlap=overlap, seed=seed)
    if fmt is OutputFormat.json:
        emit_object(done, fmt)
        return
    emit_object({k: v for k, v in done.items() if k != "per_assessor"}, fmt, title=f"Audit {audit} assigned")
    emit_records(done["per_assessor"], fmt, title="Pairs per assessor")


@handles_errors
def agreement_command(ctx: typer.Context, audit: AuditName, fmt: FormatOption = OutputFormat.table) -> None:
    """Agreement on the pairs two assessors graded: κ per couple (unweighted, linear, quadratic),
    Krippendorff's α (ordinal) over all, and the conflicts not adjudicated yet."""
    with open_project(ctx) as project:
        found = project.audit_agreement(audit)
    if fmt is OutputFormat.json:
        emit_object(found, fmt)
        return
    summary = {
        "audit": found["audit"],
        "assessors": ", ".join(found["assessors"]),
        "overlap_pairs": found["overlap_pairs"],
        "krippendorff_alpha": found["krippendorff_alpha"],
        "adjudicated": found["adjudicated"],
        "conflicts": len(found["conflicts"]),  # listed below
    }
    emit_object(summary, fmt, title=f"Assessors of audit {audit}")
    emit_records(found["couples"], fmt, title="Cohen's κ per couple of assessors")
    flat = [
        {
            "qid": c["qid"],
            "docid": c["docid"],
            "grades": ", ".join(f"{a} {g:g}" for a, g in c["grades"].items()),
            "gold": c["gold"],
        }
        for c in found["conflicts"]
    ]
    emit_records(flat, fmt, title=f"Conflicts to adjudicate: {len(flat)}")


@handles_errors
def adjudicate_command(
    ctx: typer.Context,
    audit: AuditName,
    qid: Annotated[str, typer.Argument(help="The topic.")],
    docid: Annotated[str, typer.Argument(help="The document.")],
    grade: Annotated[
        float, typer.Argument(parser=grades.grade, help="The adjudicated grade: the pair's gold grade from now on.")
    ],
    person: Annotated[str | None, typer.Option(envvar=STUDIO_PERSON, help="Who adjudicates.")] = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Settle a pair's grade (a conflict of two assessors): it becomes the gold grade `studio
    estimate` uses; each assessor's grade stays recorded."""
    with open_project(ctx) as project:
        done = project.adjudicate(audit, qid, docid, grade, person=person)
    emit_object(done, fmt, title=f"Adjudicated in audit {audit}")


def register(commands: typer.Typer) -> None:
    """Add the assessor commands to `studio audit`."""
    commands.command("assign")(assign_command)
    commands.command("agreement")(agreement_command)
    # A grade may be negative: `-1` is then the grade, not an unknown option.
    commands.command("adjudicate", context_settings={"ignore_unknown_options": True})(adjudicate_command)
