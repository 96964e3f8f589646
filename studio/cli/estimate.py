"""`studio estimate`: the leaderboard full human judging would give, estimated from an LLM label
set and a partial gold audit, with intervals."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.output import Format, OutputFormat, emit_object, emit_records
from studio.domain.rows import EstimateRun

commands = typer.Typer()

Design = Annotated[
    str, typer.Option("--design", help="topics (any measure) | pairs (P@k and nDCG@k over judged pairs).")
]
Estimator = Annotated[
    str,
    typer.Option(
        "--estimator",
        help="cross-fit (the LLM term's weight fitted on the other folds, never worse than gold) | ppi (weight 1) "
        "| ppi++ (weight fitted on the whole sample) | gold (the gold sample alone).",
    ),
]
LlmRelevant = Annotated[
    float | None,
    typer.Option("--llm-relevant", help="The LLM label set's own relevance level for binary measures (e.g. 1)."),
]
Level = Annotated[float, typer.Option("--level", min=0.5, max=0.999, help="Coverage of the intervals.")]


@commands.command()
@handles_errors
def estimate(
    ctx: typer.Context,
    qrels: Annotated[str, typer.Option("--qrels", help="The LLM label set (labels every unit).")],
    gold: Annotated[str, typer.Option("--gold", help="The human label set of the audited sample.")],
    measure: Annotated[str, typer.Option("--measure", "-m", help="Measure, e.g. nDCG@10, P(rel=2)@10.")] = "nDCG@10",
    design: Design = "topics",
    level: Level = 0.95,
    estimator: Estimator = "cross-fit",
    llm_relevant: LlmRelevant = None,
    fmt: Format = OutputFormat.table,
) -> None:
    """Estimate each run's measure under full human labels from LLM labels plus a gold sample (PPI)."""
    with open_project(ctx) as project:
        result = project.estimate(
            qrels, gold, measure, design=design, level=level, estimator=estimator, llm_relevant=llm_relevant
        )
    if fmt is OutputFormat.json:
        emit_object(result, fmt)
        return
    emit_records(
        [_run_row(row) for row in result["runs"]],
        fmt,
        title=f"Estimated {result['measure']} under full {gold} judging ({result['gold_units']} of "
        f"{result['units']} {design} graded)",
    )
    settled = [p for p in result["pairs"] if p["settled"]]
    typer.echo("")
    emit_records(
        [{k: v for k, v in p.items() if k != "settled"} for p in settled],
        fmt,
        title=f"Settled run pairs: {len(settled)} of {len(result['pairs'])} (interval excludes 0)",
    )
    typer.echo("")
    tau = result["kendall_tau_vs_llm"]
    typer.echo(f"Kendall τ of the estimated leaderboard against {qrels}'s: " + ("n/a" if tau is None else f"{tau:.3f}"))
    lam = result["lambda"]
    typer.echo(
        f"Estimator: {result['estimator']}, weight of the LLM term λ = " + ("n/a" if lam is None else f"{lam:.3f}")
    )
    typer.echo(result["covers"])
    for warning in result["warnings"]:
        typer.echo(f"Warning: {warning}", err=True)
    if result["advice"]:
        typer.echo(result["advice"])


def _run_row(row: EstimateRun) -> dict[str, Any]:
    def num(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.4f}"

    return {
        "run": row["run"],
        "estimate": num(row["estimate"]),
        "interval": f"[{num(row['low'])}, {num(row['high'])}]",
        "llm": num(row["llm"]),
        "gold_only": f"[{num(row['gold_low'])}, {num(row['gold_high'])}]",
    }
