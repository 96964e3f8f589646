"""`studio estimate`: the leaderboard full human judging would give, estimated from an LLM label
set and a partial gold audit, with intervals."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.options import (
    DEFAULT_MEASURE,
    FormatOption,
    LlmRelevantOption,
    MeasureOption,
    OptionalRefOption,
    QrelsOption,
)
from studio.cli.output import OutputFormat, emit_object, emit_records
from studio.domain.pair_decisions import AuditDecisions
from studio.domain.rows import Estimate, EstimateRun
from studio.domain.significance import Correction
from studio.domain.specs import DecisionTest, EstimateSpec

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
Level = Annotated[float, typer.Option("--level", min=0.5, max=0.999, help="Coverage of the intervals.")]
DECISION_COLUMNS = ["run_a", "run_b", "difference", "p_value", "p_adjusted", "significant"]
REF_COLUMNS = ["ref_delta", "ref_p_adjusted", "ref_significant", "supported"]


@commands.command()
@handles_errors
def estimate(
    ctx: typer.Context,
    qrels: QrelsOption,
    gold: Annotated[str, typer.Option("--gold", help="The human label set of the audited sample.")],
    measure: MeasureOption = DEFAULT_MEASURE,
    design: Design = "topics",
    level: Level = 0.95,
    estimator: Estimator = "cross-fit",
    llm_relevant: LlmRelevantOption = None,
    decisions: Annotated[
        bool,
        typer.Option(
            "--decisions",
            help="Also test every run pair's estimated difference (p-values corrected over the pairs): the "
            "decisions the audit already supports.",
        ),
    ] = False,
    correction: Annotated[
        Correction, typer.Option(help="With --decisions: the correction for the number of pairs.")
    ] = Correction.holm,
    alpha: Annotated[float, typer.Option(min=0.0, max=1.0, help="With --decisions: the significance level.")] = 0.05,
    ref: OptionalRefOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Estimate each run's measure under full human labels from LLM labels (--qrels, labelling every
    unit) plus a gold sample (PPI); with --decisions, which run-pair decisions the audit already
    supports, and with --ref too, the full reference label set's own decisions checking them."""
    if ref is not None and not decisions:
        raise typer.BadParameter("--ref checks the audit's decisions: add --decisions", param_hint="--ref")
    spec = EstimateSpec(qrels, gold, measure, design, level, estimator, llm_relevant)
    with open_project(ctx) as project:
        result = project.estimate(spec)
        decided: AuditDecisions | None = None
        if decisions:
            decided = project.estimate_decisions(spec, DecisionTest(correction.value, alpha, ref))
    if fmt is OutputFormat.json:
        # A key of its own, only when asked: the estimate's keys stay as they are.
        emit_object(result if decided is None else {**result, "decisions": decided}, fmt)
        return
    _print_estimate(result, gold, design, fmt)
    if decided is not None:
        _print_decisions(decided, fmt)
    _print_summary(result, qrels)


def _print_estimate(result: Estimate, gold: str, design: str, fmt: OutputFormat) -> None:
    """The runs' estimates with their intervals, then the run pairs the intervals settle."""
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


def _print_summary(result: Estimate, qrels: str) -> None:
    """How the estimate relates to the LLM's leaderboard, its estimator, what it covers, its warnings."""
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


def _print_decisions(decided: AuditDecisions, fmt: OutputFormat) -> None:
    title = (
        f"Run pairs the audit decides: {decided['significant']} of {len(decided['pairs'])} significant "
        f"({decided['correction']} correction, α {decided['alpha']:g})"
    )
    if "ref" in decided:
        title += (
            f"; {decided.get('supported', 0)} of them supported by {decided['ref']}'s own "
            f"{decided.get('ref_test', 't')} test ({decided.get('ref_significant', 0)} significant there, "
            f"on the {decided.get('ref_topics', 0)} topics both label)"
        )
    columns = DECISION_COLUMNS + (REF_COLUMNS if "ref" in decided else [])
    emit_records(decided["pairs"], fmt, title=title, columns=columns)
    typer.echo("")


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
