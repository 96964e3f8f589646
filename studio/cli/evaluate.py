"""`studio eval | correlate | agree | disagreements | label | undo | history`."""

from __future__ import annotations

from typing import Annotated

import typer

from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.grades import grade
from studio.cli.options import (
    DEFAULT_MEASURE,
    FormatOption,
    LlmRelevantOption,
    MeasureOption,
    MeasureRowsOption,
    MeasuresOption,
    OptionalQrelsOption,
    QrelsOption,
    RefOption,
    RelevantOption,
    ScopeOption,
    SeedOption,
    TopicOption,
    TopicsFileOption,
    llm_relevant_option,
)
from studio.cli.output import OutputFormat, emit_object, emit_records, stderr_console, warn_about_scale
from studio.cli.topic_options import (
    framed_title,
    topic_choice,
    warn_frame,
)
from studio.domain.choices import DEFAULT_MEASURES, QueueOrder
from studio.domain.comparisons import Correlation
from studio.domain.frames import TopicScope
from studio.domain.numbers import read_grade, why_not_grade
from studio.domain.settings import STUDIO_PERSON
from studio.domain.specs import AgreementSpec

Complete = Annotated[bool, typer.Option("--complete", "-c", help="Average over every labelled topic (trec_eval -c).")]


commands = typer.Typer()


@commands.command("eval")
@handles_errors
def eval_command(
    ctx: typer.Context,
    qrels: QrelsOption,
    measure: MeasuresOption = None,
    per_topic: Annotated[bool, typer.Option("--per-topic", "-q", help="One row per topic too.")] = False,
    complete: Complete = False,
    topic: TopicOption = None,
    topics_file: TopicsFileOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Leaderboard: one row per run and measure, trec_eval-exact (with --topic or --topics-file, as
    trec_eval on the labels cut to those topics)."""
    measures = measure or list(DEFAULT_MEASURES)
    chosen = topic_choice(topic, topics_file)
    with open_project(ctx) as project:
        rows = project.evaluate(qrels, measures, per_topic=per_topic, complete=complete, topics=chosen.subset)
        warnings = project.level_warnings(qrels, measures)
    _warn(warnings)
    subset = chosen.describe_subset()
    emit_records(rows, fmt, title=f"Leaderboard under {qrels}" + (f" on {subset}" if subset else ""))


def _warn(warnings: list[str]) -> None:
    """Relevance levels a label set never reaches: said on stderr, whatever the format."""
    for warning in warnings:
        stderr_console().print(f"warning: {warning}", markup=False, highlight=False)


@commands.command()
@handles_errors
def correlate(
    ctx: typer.Context,
    ref: RefOption,
    qrels: QrelsOption,
    measure: MeasureRowsOption = None,
    complete: Complete = False,
    seed: SeedOption = 0,
    llm_relevant: LlmRelevantOption = None,
    scope: ScopeOption = TopicScope.common,
    topic: TopicOption = None,
    topics_file: TopicsFileOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Rank correlation of the leaderboards under two label sets (Kendall τ-b, τ_AP, ρ, RBO, swaps),
    both on the topics both label: run-level τ, the mean of per-topic τ, τ over every topic/run
    pair, and τ on random thirds and two thirds of the topics (100 draws, 95% interval).

    Several -m print UMBRELA's Table 2, a row per measure (JSON: a list, one object per measure).
    `--topics own` puts each side on its own topics (conditions judged on disjoint topics).
    Each label set may have its own relevance level: with `-m 'P(rel=2)@10' --llm-relevant 1` the
    reference counts grade ≥ 2 as relevant and a 0/1 judge grade ≥ 1 (`levels` says which each used).
    `leaderboard:NAME` on either side names a leaderboard imported with `studio import leaderboard`:
    its means, over the runs both sides rank (per-topic statistics null)."""
    measures = measure or [DEFAULT_MEASURE]
    chosen = topic_choice(topic, topics_file, scope)
    with open_project(ctx) as project:
        results = project.correlations(
            ref, qrels, measures, topics=chosen, complete=complete, seed=seed, llm_relevant=llm_relevant
        )
    for warning in dict.fromkeys(w for result in results for w in result.get("warnings", [])):
        _warn([warning])
    if len(results) > 1:
        _print_table_two(results, fmt)
    elif fmt is OutputFormat.json:
        emit_object(results[0], fmt)
    else:
        _print_correlation(results[0], ref, qrels, fmt)


def _print_correlation(result: Correlation, ref: str, qrels: str, fmt: OutputFormat) -> None:
    """One measure's correlation: its figures in one table, then the swapped run pairs."""
    summary = {k: v for k, v in result.items() if not isinstance(v, list | dict)}
    levels = result.get("levels")
    if levels:
        summary["levels"] = f"{ref} rel ≥ {levels['ref']:g}, {qrels} rel ≥ {levels['qrels']:g}"
    bootstrap = result.get("bootstrap")
    if bootstrap is not None:
        summary["bootstrap_95"] = f"[{_num(bootstrap['low'])}, {_num(bootstrap['high'])}]"
    for sub in result.get("subsampling", []):
        summary[f"tau_{sub['topics']}_topics"] = f"{_num(sub['mean'])} ± {_num(sub['std'])}"
        summary[f"tau_{sub['topics']}_topics_95"] = f"[{_num(sub.get('low'))}, {_num(sub.get('high'))}]"
    title = framed_title(f"{qrels} against {ref} on {result['measure']}", result["frame"], fmt)
    emit_object(summary, fmt, title=title)
    swapped = result.get("swapped_pairs", [])
    if swapped and fmt is OutputFormat.table:
        typer.echo("")
        emit_records(swapped[:20], fmt, title="Swapped run pairs (largest reference gap first)")


def _print_table_two(results: list[Correlation], fmt: OutputFormat) -> None:
    """A row per measure, as UMBRELA's Table 2 (TREC RAG 2024): run-level, per-topic and topic/run
    τ, then τ on a third and two thirds of the common topics, mean [95% interval] of 100 draws."""
    if fmt is OutputFormat.json:
        emit_records(results, fmt)
        return
    first = results[0]
    rows = [table_two_row(result, fmt) for result in results]
    title = framed_title(f"Kendall τ of {first['qrels']} against {first['ref']}", first["frame"], fmt)
    emit_records(rows, fmt, title=title)


def table_two_row(result: Correlation, fmt: OutputFormat) -> dict[str, object]:
    """One measure's row: three decimals and intervals in one cell in a table, full values with the
    intervals in columns of their own in CSV and TSV."""
    table = fmt is OutputFormat.table
    figures = {
        "run-level τ": result["kendall_tau"],
        "per-topic τ": result.get("per_topic_tau"),
        "topic/run τ": result.get("pooled_tau"),
    }
    row: dict[str, object] = {"measure": result["measure"], "runs": result["runs"], "topics": result["topics"]}
    row.update({name: _num(value) if table else value for name, value in figures.items()})
    for sub in result.get("subsampling", []):
        name = f"τ {_share(sub['fraction'])} topics"
        if table:
            row[name] = f"{_num(sub['mean'])} [{_num(sub.get('low'))}, {_num(sub.get('high'))}]"
        else:
            row[name], row[f"{name} low"], row[f"{name} high"] = sub["mean"], sub.get("low"), sub.get("high")
    return row


def _share(fraction: float) -> str:
    """1/3, 2/3: a subsampling fraction as the paper writes it."""
    return {round(1 / 3, 6): "1/3", round(2 / 3, 6): "2/3"}.get(round(fraction, 6), f"{fraction:.0%}")


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


@commands.command()
@handles_errors
def agree(
    ctx: typer.Context,
    ref: RefOption,
    qrels: QrelsOption,
    ref_threshold: Annotated[
        float | None,
        typer.Option(parser=grade, help="Relevant in the reference at grade ≥ this (default 2 on 0–3 scales)."),
    ] = None,
    threshold: Annotated[float | None, llm_relevant_option("--threshold")] = None,
    relevant: RelevantOption = 1.0,
    clip: Annotated[bool, typer.Option("--clip", help="Clip grades outside the reference's scale into it.")] = False,
    topic: TopicOption = None,
    topics_file: TopicsFileOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Label agreement on the pairs both label sets label: Cohen's κ (binary, graded, weighted),
    Krippendorff's α, confusion, alignment.

    Binary κ counts the reference relevant at grade ≥ --ref-threshold and the audited set at grade
    ≥ --threshold (its own level, as estimate's --llm-relevant), each 2 on 0–3 scales and 1 on 0/1
    ones unless given. --relevant is the lowest reference grade that is Acceptable in the alignment's
    Best / Acceptable / Unacceptable categories."""
    chosen = topic_choice(topic, topics_file)
    with open_project(ctx) as project:
        warn_about_scale(project.scale_warnings(ref, [qrels]), clip)
        result = project.agreement(AgreementSpec(ref, qrels, chosen, ref_threshold, threshold, relevant, clip))
    _warn(result["warnings"])
    if fmt is OutputFormat.json:
        emit_object(result, fmt)
        return
    summary = {k: v for k, v in result.items() if not isinstance(v, list | dict)}
    levels = result["thresholds"]
    summary["thresholds"] = f"{ref} ≥ {levels['ref']:g}, {qrels} ≥ {levels['qrels']:g}"
    emit_object(summary, fmt, title=framed_title(f"{qrels} against {ref}", result["frame"], fmt))
    typer.echo("")
    categories = result["categories"]
    emit_records(
        [
            {"ref \\ qrels": f"{c:g}", **{f"{d:g}": n for d, n in zip(categories, row, strict=True)}}
            for c, row in zip(categories, result["confusion"], strict=True)
        ],
        fmt,
        title="Confusion (rows: reference grade)",
    )
    typer.echo("")
    emit_records(
        [{"pair": k, **v} for k, v in result["alignment"].items()], fmt, title="Alignment with the reference order"
    )


@commands.command()
@handles_errors
def disagreements(
    ctx: typer.Context,
    ref: RefOption,
    qrels: QrelsOption,
    measure: MeasureOption = DEFAULT_MEASURE,
    limit: Annotated[int | None, typer.Option(min=1, help="Show at most this many.")] = None,
    order: Annotated[
        QueueOrder,
        typer.Option(
            help="delta-tau: the most leaderboard-changing first; spread: where the judges disagree most "
            "(an ensemble's members or a judge's samples) first."
        ),
    ] = QueueOrder.delta_tau,
    scope: ScopeOption = TopicScope.common,
    topic: TopicOption = None,
    topics_file: TopicsFileOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """The review queue: pairs graded differently, the most leaderboard-changing first (Δτ of the
    two leaderboards on the topics both label, as `correlate` has them).

    `decided` names what a review of the two label sets already did with a pair (accept, grade,
    reference or skip); Review leaves decided pairs out of its queue and puts skipped ones last."""
    chosen = topic_choice(topic, topics_file, scope)
    with open_project(ctx) as project:
        frame = project.comparison_frame(ref, qrels, chosen).as_json()
        rows = project.disagreements(ref, qrels, measure, topics=chosen, limit=limit, order=order.value)
    warn_frame(frame)
    spread = ["spread", "spread_range"] if order is QueueOrder.spread else []
    emit_records(
        rows,
        fmt,
        title=framed_title(f"Disagreements of {qrels} with {ref} ({measure})", frame, fmt),
        columns=["qid", "docid", "ref_grade", "grade", "delta_tau", "distance", *spread, "decided"],
    )


# A grade may be negative: `-1` is then the grade, not an unknown option (no `--` needed).
@commands.command(context_settings={"ignore_unknown_options": True})
@handles_errors
def label(
    ctx: typer.Context,
    qid: Annotated[str, typer.Argument(help="Topic id.")],
    docid: Annotated[str, typer.Argument(help="Document id.")],
    grade: Annotated[str, typer.Argument(help="New grade (a negative one too: -1), or 'none' to remove the label.")],
    qrels: QrelsOption,
    note: Annotated[str | None, typer.Option(help="Why (kept with the edit).")] = None,
    person: Annotated[str | None, typer.Option(envvar=STUDIO_PERSON, help="Who edits.")] = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """One audited label edit; `studio undo` reverts it."""
    value = None if grade.lower() == "none" else _grade(grade)
    with open_project(ctx) as project:
        event = project.set_label(qrels, qid, docid, value, note, person=person)
    emit_object(event, fmt, title="Label event")
    for name, why in event.get("derived_blocked", {}).items():
        stderr_console().print(
            f"warning: {name} cannot follow this edit and keeps its last labels: {why}", markup=False, highlight=False
        )


def _grade(text: str) -> float:
    """A grade as trec_eval reads one: finite ASCII decimal (`1_0`, `١` or `nan` are no grades)."""
    value = read_grade(text)
    if value is None:
        raise typer.BadParameter(f"grade {text!r} {why_not_grade(text)} (or 'none')")
    return value


@commands.command()
@handles_errors
def undo(
    ctx: typer.Context,
    qrels: OptionalQrelsOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Revert the newest audited label edit still in effect (not undone, nor overwritten since by an import,
    a judge or a derivation); with --qrels, the newest of that label set's edits."""
    with open_project(ctx) as project:
        event = project.undo(qrels)
    if event is None:
        stderr_console().print("nothing to undo")
        return
    emit_object(event, fmt, title="Undo event")


@commands.command()
@handles_errors
def history(
    ctx: typer.Context,
    qrels: OptionalQrelsOption = None,
    limit: Annotated[int, typer.Option(min=1, help="How many, newest first.")] = 20,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Audited label edits and undos, newest first; with --qrels, only that label set's."""
    with open_project(ctx) as project:
        rows = project.label_history(qrels, limit)
    emit_records(rows, fmt, title="Label history")
