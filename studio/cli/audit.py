"""`studio audit …`: samples of an LLM label set's pool with known inclusion probabilities, their
gold labels, how big a sample a target interval width needs, and which design a budget calls for."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from studio.cli.audit_assessors import register as register_assessor_commands
from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.options import (
    DEFAULT_MEASURE,
    FormatOption,
    LlmRelevantOption,
    MeasureOption,
    QrelsOption,
    RefOption,
    SeedOption,
)
from studio.cli.output import OutputFormat, Part, emit_object, emit_parts, emit_records, stderr_console
from studio.domain.audit_results import AuditPlan
from studio.domain.errors import UsageError
from studio.domain.specs import AuditDrawSpec, AuditSimulationSpec

commands = typer.Typer(name="audit", help="Audit samples: draw, grade, import gold labels, plan.", no_args_is_help=True)

AuditName = Annotated[str, typer.Argument(help="The audit (also its gold label set's name).")]


@commands.command("plan")
@handles_errors
def plan_command(
    ctx: typer.Context,
    qrels: QrelsOption,
    name: Annotated[str | None, typer.Option("--name", help="The audit's name (and its gold label set's).")] = None,
    budget: Annotated[
        int | None,
        typer.Option(
            "--budget", min=1, help="Units to draw: topics (topic designs) or pairs; without --name, pairs to plan for."
        ),
    ] = None,
    design: Annotated[
        str, typer.Option("--design", help="topics | pairs | stratified | pairs-uncertainty | topics-neyman.")
    ] = "pairs",
    strata: Annotated[str | None, typer.Option("--strata", help="grade | confidence | topic (stratified).")] = None,
    pilot: Annotated[
        str | None,
        typer.Option("--pilot", help="A human label set to take S_h from (default: earlier audits of --qrels)."),
    ] = None,
    seed: SeedOption = 0,
    target_width: Annotated[
        float | None,
        typer.Option(
            "--target-width", min=0.0, help="Plan only: the sample each design needs for an interval this wide."
        ),
    ] = None,
    measure: MeasureOption = DEFAULT_MEASURE,
    trials: Annotated[
        int, typer.Option("--trials", min=1, help="Plan only: audits simulated per design to recommend one.")
    ] = 200,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Draw an audit sample of the pool of the LLM label set --qrels, with known inclusion
    probabilities, in a random order to walk it in (or, with --target-width, plan its size; with
    --budget and no --name, recommend a design by simulated coverage and width)."""
    if target_width is not None:
        _print_budget_plan(ctx, qrels, pilot, target_width, measure, strata, fmt)
        return
    if name is None and budget is not None:
        _print_recommendation(ctx, qrels, budget, pilot, measure, trials, seed, fmt)
        return
    if name is None or budget is None:
        raise UsageError(
            "audit plan draws a sample with --name and --budget (recommends a design with --budget alone, "
            "or plans a size with --target-width)"
        )
    with open_project(ctx) as project:
        drawn = project.plan_audit(AuditDrawSpec(qrels, name, budget, design, strata, seed, pilot))
    _print_drawn(drawn, name, fmt)


def _print_drawn(drawn: AuditPlan, name: str, fmt: OutputFormat) -> None:
    """The sample drawn: where a stratified allocation came from (stderr), the audit and its strata."""
    if drawn["design"] == "stratified":
        stderr_console().print(
            f"{drawn['allocation']} allocation"
            + (
                f" from the pilot ({drawn['pilot']}, {drawn['pilot_pairs']} pairs)"
                if drawn.get("pilot")
                else " (no pilot: no earlier audit of this label set and no --pilot)"
            ),
            markup=False,
            highlight=False,
        )
    if fmt is OutputFormat.json:
        emit_object(drawn, fmt)
        return
    emit_object({k: v for k, v in drawn.items() if k != "strata_rows"}, fmt, title=f"Audit {name}")
    if drawn["strata_rows"]:
        emit_records(drawn["strata_rows"], fmt, title="Strata")


def _print_recommendation(
    ctx: typer.Context,
    qrels: str,
    budget: int,
    pilot: str | None,
    measure: str,
    trials: int,
    seed: int,
    fmt: OutputFormat,
) -> None:
    with open_project(ctx) as project:
        found = project.recommend_audit_design(qrels, budget, pilot=pilot, measure=measure, trials=trials, seed=seed)
    if fmt is OutputFormat.json:
        emit_object(found, fmt)
        return
    emit_records(
        found["designs"], fmt, title=f"Designs at {budget} pairs: {trials} simulated audits each ({found['measure']})"
    )
    console = stderr_console()
    console.print(f"Recommended: {found['recommended']} ({found['reason']}).", markup=False, highlight=False)
    console.print(f"Simulated with {found['basis']}.", markup=False, highlight=False)
    for warning in found["warnings"]:
        console.print(f"Warning: {warning}", markup=False, highlight=False)


def _print_budget_plan(
    ctx: typer.Context, qrels: str, pilot: str | None, width: float, measure: str, strata: str | None, fmt: OutputFormat
) -> None:
    if pilot is None:
        raise UsageError("a budget plan needs --pilot: a human label set that grades some of the pool")
    with open_project(ctx) as project:
        plan = project.audit_budget(qrels, pilot, width, measure=measure, strata=strata or "grade")
    if fmt is OutputFormat.json:
        emit_object(plan, fmt)
        return
    emit_records(
        plan["designs"],
        fmt,
        title=f"Sample sizes for an interval {width:g} wide (95%); assessor-hours at "
        f"{plan['seconds_per_decision']:g} s a decision ({plan['seconds_from']})",
    )
    emit_records(plan["strata"], fmt, title=f"Neyman allocation by {plan['strata_by']}")
    if plan["topic_strata"]:
        emit_records(plan["topic_strata"], fmt, title="topics-neyman strata")


@commands.command("import")
@handles_errors
def import_command(
    ctx: typer.Context,
    audit: AuditName,
    file: Annotated[Path, typer.Argument(help="A qrels file of gold grades for the audit's pairs.")],
    assessor: Annotated[
        str | None, typer.Option("--assessor", help="Whose grades these are (of the pairs given to them).")
    ] = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Gold labels made elsewhere for an audit's sample (a pair outside the sample refuses the file)."""
    with open_project(ctx) as project:
        done = project.import_audit(audit, file, assessor=assessor)
    emit_object(done, fmt, title=f"Imported into audit {audit}")


@commands.command("list")
@handles_errors
def list_command(ctx: typer.Context, fmt: FormatOption = OutputFormat.table) -> None:
    """The audits: label set, design, units drawn, pairs graded."""
    with open_project(ctx) as project:
        rows = project.audits()
    emit_records(rows, fmt, title="Audits")


@commands.command("show")
@handles_errors
def show_command(ctx: typer.Context, audit: AuditName, fmt: FormatOption = OutputFormat.table) -> None:
    """An audit's design and progress: pairs graded of the sample, per stratum."""
    with open_project(ctx) as project:
        found = project.audit(audit)
    emit_parts(found, fmt, title=f"Audit {audit}", parts=[Part("per_stratum", "Progress per stratum")])


@commands.command("pairs")
@handles_errors
def pairs_command(
    ctx: typer.Context,
    audit: AuditName,
    remaining: Annotated[bool, typer.Option("--remaining", help="Only the pairs not graded yet.")] = False,
    assessor: Annotated[
        str | None, typer.Option("--assessor", help="Only the pairs given to this assessor (`studio audit assign`).")
    ] = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """The sampled pairs in the order they are walked in, with stratum, inclusion probability and
    gold grade: the list for assessors who grade elsewhere (then `studio audit import`)."""
    with open_project(ctx) as project:
        rows = project.audit_pairs(audit, remaining=remaining, assessor=assessor)
    emit_records(rows, fmt, title=f"Audit {audit}: {len(rows)} pairs")


@commands.command("simulate")
@handles_errors
def simulate_command(
    ctx: typer.Context,
    ref: RefOption,
    qrels: QrelsOption,
    budget: Annotated[int, typer.Option("--budget", min=2, help="Units per audit: topics or pairs.")],
    design: Annotated[
        str,
        typer.Option(
            "--design", help="topics | pairs (P@k and nDCG@k) | topics-neyman | pairs-uncertainty (beside the uniform)."
        ),
    ] = "topics",
    trials: Annotated[int, typer.Option("--trials", min=1, help="Audits drawn.")] = 1000,
    measure: MeasureOption = DEFAULT_MEASURE,
    seed: SeedOption = 0,
    level: Annotated[float, typer.Option("--level", min=0.5, max=0.999, help="Nominal coverage.")] = 0.95,
    estimator: Annotated[
        str, typer.Option("--estimator", help="cross-fit | ppi | ppi++ | gold (see `studio estimate`).")
    ] = "cross-fit",
    llm_relevant: LlmRelevantOption = None,
    pilot: Annotated[
        str | None,
        typer.Option("--pilot", help="Human grades for the designs' calibration residuals and strata spreads."),
    ] = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """How often `studio estimate`'s intervals from audits of this budget of the LLM label set
    --qrels's pool would cover the values of --ref, the label set taken as the unseen truth."""
    spec = AuditSimulationSpec(ref, qrels, budget, design, trials, measure, seed, level, estimator, llm_relevant, pilot)
    with open_project(ctx) as project:
        result = project.simulate_audit(spec)
    if fmt is OutputFormat.json:
        emit_object(result, fmt)
        return
    emit_object(
        {k: v for k, v in result.items() if k != "per_run"},
        fmt,
        title=f"{trials} audits of {budget} {design} of {qrels}, {ref} as the truth",
    )


register_assessor_commands(commands)  # assign, agreement, adjudicate: several assessors on one audit
