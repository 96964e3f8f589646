"""`studio significance`: which run differences a label set calls significant, and whether a
reference label set's decisions agree."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.options import (
    DEFAULT_MEASURE,
    FormatOption,
    MeasureOption,
    OptionalRefOption,
    QrelsOption,
    ScopeOption,
    SeedOption,
    TopicOption,
    TopicsFileOption,
)
from studio.cli.output import OutputFormat, emit_object, emit_records
from studio.cli.topic_options import (
    framed_title,
    topic_choice,
    warn_frame,
)
from studio.domain.frames import EVERY_TOPIC, TopicChoice, TopicScope
from studio.domain.pair_decisions import PairLabels
from studio.domain.significance import Correction, Significance, SignificancePlan, SignificanceTest

commands = typer.Typer()

PAIR_COLUMNS = ["run_a", "run_b", "delta", "p_value", "p_adjusted", "significant", "topics"]
REF_COLUMNS = ["ref_delta", "ref_p_adjusted", "ref_significant", "decision"]
DECISION_COLUMNS = ["label_set", "delta", "p_value", "p_adjusted", "significant"]
LABEL_COLUMNS = ["qid", "docid", "grade", "ref_grade", "change", "retrieved_by"]


def _run_names(text: str | None) -> list[str] | None:
    if text is None:
        return None
    names = [name.strip() for name in text.split(",") if name.strip()]
    if len(names) < 2:
        raise typer.BadParameter("name at least two runs, separated by commas", param_hint="--runs")
    return names


@commands.command()
@handles_errors
def significance(
    ctx: typer.Context,
    qrels: QrelsOption,
    measure: MeasureOption = DEFAULT_MEASURE,
    test: Annotated[
        SignificanceTest,
        typer.Option(help="Paired t, sign-flip randomization, shifted bootstrap, or randomised Tukey HSD."),
    ] = SignificanceTest.t,
    correction: Annotated[
        Correction,
        typer.Option(help="Correction for the number of pairs (Tukey's HSD needs none: use none with it)."),
    ] = Correction.holm,
    alpha: Annotated[float, typer.Option(min=0.0, max=1.0, help="Significance level.")] = 0.05,
    runs: Annotated[str | None, typer.Option(help="Only these runs, comma-separated (default: every run).")] = None,
    resamples: Annotated[int, typer.Option(min=1, help="Resamples of the randomization, bootstrap or Tukey test.")] = (
        10_000
    ),
    seed: SeedOption = 0,
    ref: OptionalRefOption = None,
    pair: Annotated[
        tuple[str, str] | None,
        typer.Option(
            "--pair",
            metavar="A B",
            help="Two runs: their decision under both label sets (with --ref) and the labels it hangs on.",
        ),
    ] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="With --pair: show at most this many labels.")] = None,
    scope: ScopeOption = TopicScope.common,
    topic: TopicOption = None,
    topics_file: TopicsFileOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Paired significance tests between every pair of runs under --qrels, corrected for the number
    of pairs; with --ref, both label sets tested alike and the agreement of their decisions, pair by
    pair; with --ref and --pair A B, the labels that pair's decision hangs on."""
    plan = SignificancePlan(test.value, correction.value, alpha, resamples, seed)
    chosen = topic_choice(topic, topics_file, scope)
    if pair is not None:
        ref = _check_pair(chosen, ref)
        with open_project(ctx) as project:
            behind = project.pair_labels(
                ref, qrels, pair[0], pair[1], measure, plan, runs=_run_names(runs), limit=limit
            )
        _print_pair(behind, fmt)
        return
    if limit is not None:
        raise typer.BadParameter("--limit counts the labels behind a --pair", param_hint="--limit")
    with open_project(ctx) as project:
        result = project.significance(qrels, measure, plan, runs=_run_names(runs), ref=ref, topics=chosen)
    warn_frame(result.get("frame"))
    if fmt is OutputFormat.json:
        emit_object(result, fmt)
        return
    _print(result, fmt, chosen.describe_subset())


def _check_pair(chosen: TopicChoice, ref: str | None) -> str:
    """The reference a --pair is compared under; a usage error when the other options do not fit it."""
    if chosen != EVERY_TOPIC:
        raise typer.BadParameter(
            "--pair tests the pair on the topics both label sets label; drop --topics, --topic and --topics-file",
            param_hint="--pair",
        )
    if ref is None:
        raise typer.BadParameter("--pair compares two label sets: name the reference with --ref", param_hint="--pair")
    return ref


def _print(result: Significance, fmt: OutputFormat, subset: str | None = None) -> None:
    significant = sum(p["significant"] for p in result["pairs"])
    title = (
        f"{result['test']} test of {result['runs']} runs on {result['measure']} under {result['qrels']}, "
        f"{result['correction']} correction, α {result['alpha']:g}: {significant} of {len(result['pairs'])} "
        "pairs significant"
    )
    if subset is not None and "frame" not in result:
        title += f", on {subset} ({result.get('topics', 0)} labelled)"
    columns = PAIR_COLUMNS + (REF_COLUMNS if "ref" in result else [])
    emit_records(result["pairs"], fmt, title=framed_title(title, result.get("frame"), fmt), columns=columns)
    if "agreement" not in result or fmt is not OutputFormat.table:
        return
    typer.echo("")
    summary: dict[str, Any] = {k: "n/a" if v is None else v for k, v in result["agreement"].items()}
    for k, tau in result.get("top_k_tau", {}).items():
        summary[f"tau_top_{k}"] = "n/a" if tau is None else f"{tau:.3f}"
    best = result.get("best_run")
    if best is not None:
        summary["best_run"] = best["run"]
        summary["best_beats_all"] = f"{result['ref']}: {_yes(best['ref'])}, {result['qrels']}: {_yes(best['qrels'])}"
    emit_object(summary, fmt, title=f"Decisions of {result['qrels']} against {result['ref']}")


def _print_pair(result: PairLabels, fmt: OutputFormat) -> None:
    if fmt is OutputFormat.json:
        emit_object(result, fmt)
        return
    a, b = result["run_a"], result["run_b"]
    decisions = [
        {"label_set": result["qrels"], **result["qrels_decision"]},
        {"label_set": result["ref"], **result["ref_decision"]},
    ]
    emit_records(
        decisions,
        fmt,
        title=f"{a} vs {b} on {result['measure']} ({result['topics']} topics), {result['test']} test, "
        f"{result['correction']} correction, α {result['alpha']:g}: {result['decision']}",
        columns=DECISION_COLUMNS,
    )
    if fmt is OutputFormat.table:
        typer.echo("")
    shown = len(result["labels"])
    emit_records(
        result["labels"],
        fmt,
        title=f"Labels of {result['qrels']} the decision hangs on ({shown} of {result['labels_total']}), "
        f"the change in {a} − {b} were each to take {result['ref']}'s grade",
        columns=LABEL_COLUMNS,
    )


def _yes(value: bool) -> str:
    return "yes" if value else "no"
