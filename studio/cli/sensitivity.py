"""`studio sensitivity [run | report]`: how far an LLM judge's labels move with the prompt's wording.

One study, three ways in: bare, it judges the pool with several prompt templates (a collection of
them, named like the label sets); `run` judges a seeded sample with an imported prompt collection ×
models × methods; `report` reports the study over every label set linked to a prompt (imported or
run).
"""

from __future__ import annotations

from typing import Annotated

import typer

from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.options import FormatOption, MeasureOption, RefOption, SeedOption, TopicOption
from studio.cli.output import OutputFormat, emit_object, emit_records
from studio.cli.pools import POOL_HELP
from studio.cli.pools import pool as pool_value
from studio.cli.progress import progress_bar
from studio.cli.study_options import BinariseRef, JudgeRelevant, PoolCollections, RefRelevant, Variance
from studio.domain.choices import BackendName, SensitivityMethod, StudyMethodChoice, VarianceKind
from studio.domain.errors import UsageError
from studio.domain.judging import JudgeConfig
from studio.domain.prompt_study import StudyPlan, StudyReport, StudyRunSummary, StudyTableRow

commands = typer.Typer(
    name="sensitivity",
    help="Prompt sensitivity: a study of prompt templates (bare), of a prompt collection (run), its report.",
    invoke_without_command=True,
)


@commands.callback()
@handles_errors
def sensitivity(
    ctx: typer.Context,
    prompt: Annotated[
        list[str] | None, typer.Option("--prompt", help="Prompt template or folder of templates (repeat).")
    ] = None,
    method: Annotated[SensitivityMethod, typer.Option(help="The judging method.")] = SensitivityMethod.binary,
    backend: Annotated[BackendName, typer.Option(help="Who answers the prompts.")] = BackendName.llamacpp,
    name: Annotated[
        str, typer.Option(help="Prefix of the label sets (one per prompt), and the templates' collection.")
    ] = "prompt",
    model: Annotated[str | None, typer.Option(help="GGUF path (llamacpp) or model name (openai).")] = None,
    pool: Annotated[str, typer.Option(parser=pool_value, help=POOL_HELP)] = "qrels:human",
    ref: RefOption = "human",
    topics: TopicOption = None,
    limit: Annotated[int | None, typer.Option(min=1, help="At most this many pairs.")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint.")] = None,
    seed: SeedOption = 0,
    ref_relevant: RefRelevant = 2.0,
    variance: Variance = VarianceKind.sample,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Judge the pool with several prompt templates, each into its own label set linked to it: the
    study's report (agreement per prompt, mean and variance, α between prompts). `studio sensitivity
    run` and `studio sensitivity report` study an imported prompt collection."""
    if ctx.invoked_subcommand is not None:
        return
    if not prompt:
        raise UsageError("give the prompts to compare (--prompt, repeat), or a subcommand: run, report")
    config = JudgeConfig(
        method=method.value,
        backend=backend.value,
        name=name,
        pool=pool,
        model=model,
        topics=topics,
        limit=limit,
        ref=ref,
        base_url=base_url,
        seed=seed,
    )
    with open_project(ctx) as project:
        study = project.prompt_sensitivity(config, prompt, ref_relevant=ref_relevant, variance=variance.value)
        result = progress_bar(study, f"{method.value} × {len(prompt)} prompts")
    print_summary(result, fmt)


@commands.command("report")
@handles_errors
def report(
    ctx: typer.Context,
    ref: RefOption,
    ref_relevant: RefRelevant = 2.0,
    relevant: JudgeRelevant = 1.0,
    variance: Variance = VarianceKind.sample,
    binarise_ref: BinariseRef = None,
    pool_collections: PoolCollections = False,
    prompts: Annotated[str | None, typer.Option("--prompts", help="Only this prompt collection's label sets.")] = None,
    reference: Annotated[
        list[str] | None,
        typer.Option("--reference", help="A label set shown as a reference row, e.g. UMBRELA's (repeat)."),
    ] = None,
    measure: MeasureOption = "nDCG@10",
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """The study over every label set linked to a prompt: agreement per prompt (κ for binary and
    graded, the share of pairs ordered as the reference in both orders for pairwise), mean and
    variance per model × author group × method (Table 4.5), α between a group's prompts, lexical
    diversity, and the leaderboard's τ under each prompt.

    Binary κ counts the reference relevant at grade ≥ --ref-relevant and the judges at grade ≥
    --relevant. The thesis's Table 4.5: --ref-relevant 2 --binarise-ref 2 --pool-collections."""
    with open_project(ctx) as project:
        result = project.study_report(
            ref,
            ref_relevant=ref_relevant,
            relevant=relevant,
            variance=variance.value,
            binarise_ref=binarise_ref,
            pool_collections=pool_collections,
            collection=prompts,
            references=reference or [],
            measure=measure,
        )
    print_study(result, fmt)


def print_study(result: StudyReport, fmt: OutputFormat) -> None:
    """The report as JSON, or its tables one after another."""
    if fmt is OutputFormat.json:
        emit_object(result, fmt)
        return
    emit_records(result["cells"], fmt, title=f"Agreement with {result['ref']} per prompt")
    typer.echo("")
    table_title = f"Table 4.5: mean agreement ({result['variance']} variance) per model × group, by method"
    if fmt is OutputFormat.table:
        emit_records([_table_line(row) for row in result["table"]], fmt, title=table_title)
    else:
        emit_records(result["table"], fmt, title=table_title)
    typer.echo("")
    emit_records(result["alpha"], fmt, title="Krippendorff's α between the prompts of a group")
    typer.echo("")
    emit_records(result["lexical_diversity"], fmt, title="Lexical diversity of the prompts")


def _table_line(row: StudyTableRow) -> dict[str, str]:
    """A Table 4.5 row for the terminal: each method's `mean (variance) ×cells`."""
    line = {"model": row["model"], "group": row["group"], "collection": row["collection"]}
    for method in ("binary", "graded", "pairwise"):
        mean, variance, cells = (row[f"{method}_{part}"] for part in ("mean", "variance", "cells"))  # type: ignore[literal-required]
        line[method] = "" if not cells else f"{_number(mean)} ({_number(variance)}) ×{cells}"
    return line


def _number(value: float | None) -> str:
    if value is None:
        return "–"
    return "0" if value == 0 else f"{value:.4f}" if abs(value) >= 0.0001 else f"{value:.2e}"


@commands.command("run")
@handles_errors
def run(
    ctx: typer.Context,
    prompts: Annotated[str, typer.Option("--prompts", help="The prompt collection.", show_default=False)],
    collection: Annotated[
        str, typer.Option(help="Name of the test collection judged (e.g. dl20).", show_default=False)
    ],
    method: Annotated[
        list[StudyMethodChoice] | None, typer.Option("--method", help="Methods to run (repeat; default all three).")
    ] = None,
    backend: Annotated[BackendName, typer.Option(help="Who answers the prompts.")] = BackendName.llamacpp,
    model: Annotated[
        list[str] | None, typer.Option("--model", help="GGUF path (llamacpp) or model name (openai); repeat.")
    ] = None,
    ref: RefOption = "human",
    per_grade: Annotated[int, typer.Option(min=0, help="Passages per topic and grade (0: all).")] = 10,
    per_category: Annotated[int, typer.Option(min=0, help="Pairs per topic and category (0: all).")] = 10,
    topics: TopicOption = None,
    name: Annotated[str, typer.Option(help="Prefix of the label sets.")] = "study",
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint.")] = None,
    kappa: Annotated[float, typer.Option(min=0.0, max=1.0, help="The simulated judge's agreement with --ref.")] = 0.6,
    seed: SeedOption = 0,
    ref_relevant: RefRelevant = 2.0,
    variance: Variance = VarianceKind.sample,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Judge a seeded sample (up to N passages per topic and grade; up to N pairs per topic from each
    of 3-vs-0/1, 2-vs-0/1 and 3-vs-2, asked in both orders) with every prompt × model × method, each
    into its own linked label set; then the study's report. Calls are cached: a rerun costs nothing."""
    methods = tuple(m.value for m in method) if method else ("binary", "graded", "pairwise")
    plan = StudyPlan(
        collection=prompts,
        methods=methods,
        test_collection=collection,
        ref=ref,
        prefix=name,
        per_grade=per_grade or None,
        per_category=per_category or None,
        seed=seed,
        topics=tuple(topics) if topics else None,
    )
    config = JudgeConfig(
        method="binary", backend=backend.value, name=name, ref=ref, base_url=base_url, kappa=kappa, seed=seed
    )
    with open_project(ctx) as project:
        result = progress_bar(
            project.run_study(plan, config, model or ["-"], variance=variance.value, ref_relevant=ref_relevant),
            f"study of {prompts}",
        )
    print_summary(result, fmt)


def print_summary(result: StudyRunSummary, fmt: OutputFormat) -> None:
    """What a study judged as JSON, or its report's tables."""
    if fmt is OutputFormat.json:
        emit_object(result, fmt)
        return
    print_study(result["report"], fmt)
