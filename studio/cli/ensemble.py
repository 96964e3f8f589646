"""`studio ensemble`: a label set combining several, pair by pair, and how each member and the
ensemble agree with a reference."""

from __future__ import annotations

from typing import Annotated

import typer

from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.options import DEFAULT_MEASURE, FormatOption, MeasureOption, QrelsListOption, RefOption
from studio.cli.output import OutputFormat, emit_object, emit_records, stderr_console
from studio.domain.choices import EnsembleHow
from studio.domain.comparisons import EnsembleScore

commands = typer.Typer()


@commands.command()
@handles_errors
def ensemble(
    ctx: typer.Context,
    qrels: QrelsListOption,
    name: Annotated[str, typer.Option(help="The ensemble's label set (kind derived).")],
    how: Annotated[
        EnsembleHow,
        typer.Option(
            help="Per pair: the majority grade (a tie goes to the tied grade nearest the median, then the "
            "lower), the mean or the median of the members that judged it."
        ),
    ] = EnsembleHow.majority,
    ref: RefOption = "human",
    measure: MeasureOption = DEFAULT_MEASURE,
    replace: Annotated[bool, typer.Option("--replace", help="Rebuild an existing label set of that name.")] = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Combine the label sets of --qrels (repeated, at least two) pair by pair into a derived label
    set that follows its members (a member judged, imported or edited again recomputes it), keeping
    each pair's spread (how many members judged it, their standard deviation and range); prints
    Cohen's κ and Kendall τ-b against `--ref` of every member and of the ensemble."""
    with open_project(ctx) as project:
        made = project.ensemble(qrels, how.value, name, replace=replace)
        has_ref = any(s["name"] == ref for s in project.label_sets())
        scores = project.ensemble_scores(name, ref, measure) if has_ref else None
    if fmt is OutputFormat.json:
        emit_object(made | {"ref": ref, "measure": measure, "scores": scores["rows"] if scores else None}, fmt)
        return
    stderr_console().print(
        f"{name}: {how.value} of {', '.join(made['members'])}: {made['labels']} labels on {made['topics']} topics, "
        f"{made['events']} label events; members disagree on {made['pairs_members_disagree']} pairs"
    )
    if scores is None:
        stderr_console().print(f"no label set {ref!r} to compare with (--ref)")
        return
    emit_records([_row(r) for r in scores["rows"]], fmt, title=f"Against {ref} ({measure})")


def _row(row: EnsembleScore) -> dict[str, object]:
    return {
        "qrels": row["qrels"],
        "role": row["role"],
        "pairs": row["pairs"],
        "κ graded": row["kappa_graded"],
        "κ binary": row["kappa_binary"],
        "τ": row["kendall_tau"],
    }
