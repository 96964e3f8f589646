"""`studio fd`: the FD@k leaderboard (Fréchet distance between retrieved and relevant embeddings)."""

from __future__ import annotations

from typing import Annotated

import typer

from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.options import FormatOption, OptionalRelevantOption, QrelsOption
from studio.cli.output import OutputFormat, emit_object, emit_records

commands = typer.Typer()


@commands.command()
@handles_errors
def fd(
    ctx: typer.Context,
    qrels: QrelsOption,
    k: Annotated[int, typer.Option("-k", min=1, help="Depth of each run's ranking.")] = 10,
    unjudged_only: Annotated[
        bool, typer.Option("--unjudged-only", help="Only the top-k documents the label set did not judge.")
    ] = False,
    relevant: OptionalRelevantOption = None,
    model: Annotated[
        str | None, typer.Option(help="A local sentence-transformers folder (default: the bundled all-MiniLM-L6-v2).")
    ] = None,
    ref_measure: Annotated[
        str, typer.Option(help="Measure of the label set's leaderboard that Kendall τ compares −FD with.")
    ] = "nDCG@10",
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """FD@k leaderboard: Fréchet distance between the embeddings of each run's top k and of the
    relevant documents of --qrels (lower is better), with Kendall τ against that label set's
    leaderboard.

    Relevant: grade ≥ --relevant, by default 2 on graded scales, else 1."""
    with open_project(ctx) as project:
        result = project.fd_leaderboard(
            qrels, k=k, unjudged_only=unjudged_only, relevant=relevant, model=model, ref_measure=ref_measure
        )
    if fmt is OutputFormat.json:
        emit_object(result, fmt)
        return
    tau = "n/a" if result["kendall_tau"] is None else f"{result['kendall_tau']:.3f}"
    emit_records(
        result["rows"],
        fmt,
        columns=["run", "value", "documents"],
        title=f"{result['measure']} against {result['relevant_documents']} relevant documents of {qrels}"
        f" (Kendall τ with {ref_measure}: {tau})",
    )
