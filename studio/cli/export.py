"""`studio export qrels|bank|leaderboard|responses … --out FILE` (`--out -` writes to stdout)."""

from __future__ import annotations

from typing import Annotated

import typer

from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.grades import grade
from studio.cli.options import MeasuresOption, OptionalRefOption, QrelsOption
from studio.cli.output import stderr_console
from studio.domain.choices import AnswerLayout, BankFormat, LeaderboardLayout
from studio.domain.export_report import ExportReport
from studio.domain.significance import Correction, SignificancePlan, SignificanceTest

commands = typer.Typer(
    name="export",
    help="Write label sets, test banks, leaderboards and answers to files (each written whole or not at all).",
    no_args_is_help=True,
)

Out = Annotated[
    str,
    typer.Option(
        "--out",
        "-o",
        help="Output file ('-' or /dev/stdout for stdout; a FIFO or a device is written in place; a .gz name is"
        " gzipped).",
        show_default=False,
    ),
]


def _report(report: ExportReport) -> None:
    console = stderr_console()
    for warning in report.warnings:
        console.print(f"warning: {warning}", markup=False)
    console.print(report.summary(), markup=False)


@commands.command("qrels")
@handles_errors
def export_qrels(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Label set to export.", show_default=False)],
    out: Out,
) -> None:
    """A label set as TREC qrels `qid 0 docid grade` (fractional grades written exactly)."""
    with open_project(ctx) as project:
        _report(project.export_qrels(name, out))


@commands.command("prompts")
@handles_errors
def export_prompts(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Prompt collection to export.", show_default=False)],
    out: Out,
    folder: Annotated[
        bool, typer.Option("--folder", help="Write a folder of template folders ID/METHOD/ instead of prompts.json.")
    ] = False,
) -> None:
    """A prompt collection as `prompts.json` (the published layout), or as the studio's prompt folders."""
    with open_project(ctx) as project:
        _report(project.export_prompts(name, out, folder=folder))


@commands.command("judgments")
@handles_errors
def export_judgments(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Label set made by a judge.", show_default=False)],
    out: Out,
) -> None:
    """A judge's newest run as UMBRELA-style judgment JSONL (prompt, raw output, judgment)."""
    with open_project(ctx) as project:
        _report(project.export_judgments(name, out))


@commands.command("graded")
@handles_errors
def export_graded(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Label set of a rubric judge.", show_default=False)],
    out: Out,
    ref: OptionalRefOption = "human",
    min_grade: Annotated[
        float, typer.Option(parser=grade, help="correctAnswered at grade ≥ this (Rubric files).")
    ] = 4.0,
) -> None:
    """Item grades: a Rubric-workbench graded file (exam, subtopic) or nuggetizer assignments (nugget-assign),
    with --ref's labels written beside the grades."""
    with open_project(ctx) as project:
        _report(project.export_graded(name, out, ref=ref, min_grade=min_grade))


@commands.command("bank")
@handles_errors
def export_bank(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Test bank to export.", show_default=False)],
    out: Out,
    fmt: Annotated[
        BankFormat | None,
        typer.Option(
            "--as",
            help="File format (default: tsv for a .tsv name, else the JSON layout the bank was imported in,"
            " else rubric).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """A test bank as Rubric-workbench JSONL (`items`, or the older `questions` as rubric-questions),
    nuggetizer JSONL or TSV qid_n<TAB>text<TAB>importance."""
    with open_project(ctx) as project:
        _report(project.export_bank(name, out, fmt))


@commands.command("leaderboard")
@handles_errors
def export_leaderboard(
    ctx: typer.Context,
    qrels: QrelsOption,
    out: Out,
    measure: MeasuresOption = None,
    fmt: Annotated[
        LeaderboardLayout | None,
        typer.Option(
            "--as",
            help="File format (default: from the name, .tsv/.csv/.jsonl/.tex, else json); trec_eval, tot,"
            " ir_measures and jsonl give the topic column 'all' to means.",
            show_default=False,
        ),
    ] = None,
    per_topic: Annotated[bool, typer.Option("--per-topic", "-q", help="One row per topic too.")] = False,
    complete: Annotated[
        bool, typer.Option("--complete", "-c", help="Average over every labelled topic (trec_eval -c).")
    ] = False,
    significance: Annotated[
        bool,
        typer.Option(
            "--significance",
            help="LaTeX only: letter the runs and mark each value with the runs it beats significantly.",
        ),
    ] = False,
    test: Annotated[SignificanceTest, typer.Option(help="With --significance: the test of each run pair.")] = (
        SignificanceTest.t
    ),
    correction: Annotated[
        Correction, typer.Option(help="With --significance: the correction for the number of pairs.")
    ] = Correction.holm,
    alpha: Annotated[float, typer.Option(min=0.0, max=1.0, help="With --significance: the significance level.")] = 0.05,
) -> None:
    """The rows of `studio eval` as JSON, TSV or CSV, or as the evaluation tools write a leaderboard.

    trec_eval: `trec_eval -q` output, one block per run (runid, num_q, 4 decimals); tot: run measure
    topic value; ir_measures: run topic measure value; jsonl: {run, measure, topic, value}; latex: a
    booktabs table of the means, the best of each measure in bold. -q adds the per-topic values.
    --significance (LaTeX): as ranx's reports, runs lettered a, b, c… and each value's superscript
    the letters of the runs it is significantly better than under that measure."""
    with open_project(ctx) as project:
        _report(
            project.export_leaderboard(
                qrels,
                measure,
                out,
                fmt,
                per_topic=per_topic,
                complete=complete,
                significance=SignificancePlan(test.value, correction.value, alpha) if significance else None,
            )
        )


@commands.command("probs")
@handles_errors
def export_probs(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Label set made by a judge.", show_default=False)],
    out: Out,
) -> None:
    """A judge's label distributions as CSV topic_id,doc_id,prob_0…prob_k (what `studio import probs` reads)."""
    with open_project(ctx) as project:
        _report(project.export_probs(name, out))


@commands.command("responses")
@handles_errors
def export_responses(
    ctx: typer.Context,
    out: Out,
    system: Annotated[
        list[str] | None, typer.Option("--system", help="System whose answers to write (repeat); default: all.")
    ] = None,
    layout: Annotated[
        AnswerLayout,
        typer.Option(
            "--as",
            help="jsonl: {qid, system, text, citations} a line; rag24: TREC RAG 2024 records (one sentence an answer).",
        ),
    ] = AnswerLayout.jsonl,
) -> None:
    """Generated answers as JSONL or TREC RAG 2024 records (what `studio import responses` reads)."""
    with open_project(ctx) as project:
        _report(project.export_responses(out, systems=system, layout=layout))
