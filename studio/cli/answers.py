"""`studio answers [compare | significance | tournament | runs]`: generative systems judged by their
answers, as Arabzadeh & Clarke's "A Comparison of Methods for Evaluating Generative IR" does (a
method is validated first with `studio validate`).

Bare, `studio answers --labels SET` is the answers' leaderboard. `--qrels SET`, what the command
took before it had methods, keeps working as it did (the mean grade, under the key `mean`) and says
on stderr that `--labels` replaces it.
"""

from __future__ import annotations

from typing import Annotated

import typer

from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.options import DEFAULT_MEASURE, FormatOption, MeasureOption, OptionalQrelsOption, RefOption, SeedOption
from studio.cli.output import OutputFormat, emit_object, emit_records, stderr_console
from studio.domain.choices import AnswerGain
from studio.domain.errors import UsageError
from studio.domain.significance import Correction, SignificancePlan, SignificanceTest

commands = typer.Typer(
    name="answers",
    help="Generative systems by their answers: leaderboard (bare), compare, significance, tournament, runs.",
    invoke_without_command=True,
)

Labels = Annotated[
    list[str] | None, typer.Option("--labels", help="Answers label set(s) (repeat for several methods).")
]
OneLabelSet = Annotated[str, typer.Option("--labels", help="Answers label set.")]
Gain = Annotated[AnswerGain, typer.Option(help="Gain of a graded verdict: 2^g − 1 (exp, the paper's) or g (linear).")]
Resamples = Annotated[int, typer.Option(min=1, help="Bootstrap resamples of the topics.")]
SCORE_COLUMNS = ["system", "method", "score", "low", "high", "topics", "label_set"]
PAIR_COLUMNS = ["run_a", "run_b", "delta", "p_value", "p_adjusted", "significant", "topics"]


@commands.callback()
@handles_errors
def answers(
    ctx: typer.Context,
    labels: Labels = None,
    qrels: OptionalQrelsOption = None,  # deprecated: --labels replaces it (a note on stderr says so)
    gain: Gain = AnswerGain.exp,
    resamples: Resamples = 1000,
    seed: SeedOption = 0,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """The answers' leaderboard: each system's score under each label set's verdicts (binary: share
    of topics relevant; graded: mean gain; subtopics: yes / (k + 1); preferences: share of topics won
    against the exemplar; embedding: mean similarity), 95% percentile bootstrap interval over topics."""
    if ctx.invoked_subcommand is not None:
        return
    if qrels is not None:
        if labels:
            raise UsageError("give --labels (--qrels is its old name), not both")
        _older_leaderboard(ctx, qrels, seed, fmt)
        return
    if not labels:
        raise UsageError("name the answers label set(s) with --labels, or a subcommand: compare, significance, …")
    with open_project(ctx) as project:
        rows = project.answer_scores(labels, gain=gain, resamples=resamples, seed=seed)
    emit_records(rows, fmt, title=f"Generated answers under {', '.join(labels)}", columns=SCORE_COLUMNS)


def _older_leaderboard(ctx: typer.Context, qrels: str, seed: int, fmt: OutputFormat) -> None:
    """`studio answers --qrels SET` as it was: the mean grade of each system's answers."""
    stderr_console().print(
        f"note: --qrels is deprecated; `studio answers --labels {qrels} --gain linear` gives the mean grade as `score`",
        markup=False,
        highlight=False,
    )
    with open_project(ctx) as project:
        rows = project.answer_leaderboard(qrels, seed=seed)
    emit_records(rows, fmt, title=f"Generated answers under {qrels}")


@commands.command("compare")
@handles_errors
def compare(
    ctx: typer.Context,
    labels: Labels = None,
    gain: Gain = AnswerGain.exp,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Kendall τ between answers label sets' orders of the systems, every pair of the sets named, each
    system scored on the topics both sets judge it on."""
    names = labels or []
    if len(names) < 2:
        raise UsageError("name at least two answers label sets (--labels A --labels B)")
    with open_project(ctx) as project:
        rows = [project.answer_agreement(a, b, gain=gain) for i, a in enumerate(names) for b in names[i + 1 :]]
    if fmt is OutputFormat.json:
        emit_object({"pairs": rows}, fmt)
        return
    shown = [{**row, "order_a": " > ".join(row["order_a"]), "order_b": " > ".join(row["order_b"])} for row in rows]
    emit_records(shown, fmt, title="Systems ordered by two methods (τ-b, τ-a)")


@commands.command("significance")
@handles_errors
def significance(
    ctx: typer.Context,
    labels: OneLabelSet,
    gain: Gain = AnswerGain.exp,
    test: Annotated[SignificanceTest, typer.Option(help="As `studio significance --test`.")] = SignificanceTest.t,
    correction: Annotated[Correction, typer.Option(help="Correction for the number of pairs.")] = Correction.holm,
    alpha: Annotated[float, typer.Option(min=0.0, max=1.0, help="Significance level.")] = 0.05,
    resamples: Annotated[int, typer.Option(min=1, help="Resamples of a resampling test.")] = 10_000,
    seed: SeedOption = 0,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Paired tests between every pair of systems on the topics both were judged on (the tests of
    `studio significance`), corrected for the number of pairs; run_a/run_b name the systems."""
    plan = SignificancePlan(test.value, correction.value, alpha, resamples, seed)
    with open_project(ctx) as project:
        result = project.answer_significance(labels, gain=gain, plan=plan)
    if fmt is OutputFormat.json:
        emit_object(result, fmt)
        return
    significant = sum(p["significant"] for p in result["pairs"])
    title = (
        f"{result['test']} test of {result['runs']} systems under {labels} ({result['measure']}), "
        f"{result['correction']} correction: {significant} of {len(result['pairs'])} pairs significant"
    )
    emit_records(result["pairs"], fmt, title=title, columns=PAIR_COLUMNS)


@commands.command("tournament")
@handles_errors
def tournament(
    ctx: typer.Context,
    labels: OneLabelSet,
    resamples: Resamples = 1000,
    seed: SeedOption = 0,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Systems against each other: Bradley–Terry strengths from a pairwise tournament between answers
    (`studio judge --answers --method pairwise --tournament`), Elo-scaled beside them with a 95%
    bootstrap interval over topics."""
    with open_project(ctx) as project:
        result = project.answer_tournament(labels, resamples=resamples, seed=seed)
    if fmt is OutputFormat.json:
        emit_object(result, fmt)
        return
    title = (
        f"Tournament {labels}: {result['systems']} systems, {result['matches']} matches on {result['topics']} topics "
        f"(at most {result['calls_per_topic_bound']} calls a topic)"
    )
    emit_records(result["rows"], fmt, title=title)


@commands.command("runs")
@handles_errors
def runs(
    ctx: typer.Context,
    ref: RefOption = "human",
    measure: MeasureOption = DEFAULT_MEASURE,
    model: Annotated[str | None, typer.Option(help="sentence-transformers model folder (default: bundled).")] = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Answers on the runs' scale: each run's first retrieved passage that is not a top-grade passage
    (the target) and each system's answer, by mean cosine to the targets; τ between the runs'
    similarity and their measure. Needs the embeddings extra."""
    with open_project(ctx) as project:
        result = project.answers_on_runs_scale(ref, measure=measure, model=model)
    if fmt is OutputFormat.json:
        emit_object(result, fmt)
        return
    tau = "n/a" if result["kendall_tau"] is None else f"{result['kendall_tau']:.3f}"
    title = (
        f"Similarity to {result['targets']} top-grade passages of {ref} on {result['topics']} topics "
        f"({result['model']}); runs' τ-b with {result['measure']}: {tau}"
    )
    emit_records(result["rows"], fmt, title=title)
