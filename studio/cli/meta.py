"""`studio compare | probe`: comparing judging methods on a level playing field."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.options import (
    DEFAULT_MEASURE,
    FormatOption,
    MeasureOption,
    QrelsListOption,
    RefOption,
    ScopeOption,
    SeedOption,
    TopicOption,
    TopicsFileOption,
)
from studio.cli.output import OutputFormat, emit_records, warn_about_scale
from studio.cli.progress import progress_bar
from studio.cli.topic_options import topic_choice, warn_frame
from studio.domain.choices import StuffingKind, StuffingPosition
from studio.domain.comparisons import MethodComparison
from studio.domain.frames import TopicScope, frame_line
from studio.domain.specs import ComparisonSpec

commands = typer.Typer()


def _interval(low: Any, high: Any) -> str:
    return "n/a" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"


def _rate(value: Any) -> str:
    return "n/a" if value is None else f"{value:.2f}"


@commands.command()
@handles_errors
def compare(
    ctx: typer.Context,
    ref: RefOption,
    qrels: QrelsListOption,
    measure: MeasureOption = DEFAULT_MEASURE,
    resamples: Annotated[int, typer.Option(min=1, help="Bootstrap resamples over topics.")] = 1000,
    seed: SeedOption = 0,
    clip: Annotated[bool, typer.Option("--clip", help="Clip grades outside the reference's scale into it.")] = False,
    scope: ScopeOption = TopicScope.common,
    topic: TopicOption = None,
    topics_file: TopicsFileOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """One table: per label set of --qrels (repeated) κ, α, alignment, leniency, τ and τ_AP with 95%
    bootstrap intervals, and the τ of its compatibility leaderboard against the reference's nDCG@10
    leaderboard; each label set with the reference on the topics both label (`--topics own`: each
    on its own)."""
    chosen = topic_choice(topic, topics_file, scope)
    with open_project(ctx) as project:
        warn_about_scale(project.scale_warnings(ref, qrels), clip)
        rows = project.compare(ComparisonSpec(ref, qrels, measure, chosen, resamples, seed, clip))
    for row in rows:
        warn_frame(row["frame"])
    if fmt is OutputFormat.json:
        emit_records(rows, fmt)
        return
    if fmt is not OutputFormat.table:  # one flat row per label set for spreadsheets
        emit_records([flat_row(row) for row in rows], fmt)
        return
    _print_tables(rows, ref, measure, fmt)


def _print_tables(rows: list[MethodComparison], ref: str, measure: str, fmt: OutputFormat) -> None:
    """Three tables: the labels against the reference's, the leaderboards against its, and the
    alignment with the order of its grades."""
    emit_records(
        [_labels_row(row) for row in rows],
        fmt,
        title="\n".join([f"Labels against {ref}", *(frame_line(row["frame"]) for row in rows)]),
    )
    typer.echo("")
    emit_records(
        [_leaderboards_row(row) for row in rows],
        fmt,
        title=f"Leaderboards against {ref} ({rows[0]['measure'] if rows else measure}; τ compat: "
        "Compat(p=0.9) against nDCG@10)",
    )
    typer.echo("")
    alignment = [
        {
            "qrels": row["qrels"],
            "pair": pair.replace("_", " "),
            "pairs": bucket["pairs"],
            "agree": _rate(bucket["agree"]),
            "tie": _rate(bucket["tie"]),
            "disagree": _rate(bucket["disagree"]),
        }
        for row in rows
        for pair, bucket in row["alignment"].items()
    ]
    emit_records(alignment, fmt, title=f"Alignment with the order of {ref}'s grades")


def _labels_row(r: MethodComparison) -> dict[str, object]:
    return {
        "qrels": r["qrels"],
        "pairs": r["pairs"],
        "κ binary": r["kappa_binary"],
        "κ graded": r["kappa_graded"],
        "α ordinal": r["krippendorff_alpha"],
        "more lenient": _rate(r["more_lenient"]),
        "stricter": _rate(r["stricter"]),
    }


def _leaderboards_row(r: MethodComparison) -> dict[str, object]:
    return {
        "qrels": r["qrels"],
        "topics": r["topics"],
        "τ": r["kendall_tau"],
        "τ 95%": _interval(r["kendall_tau_low"], r["kendall_tau_high"]),
        "τ_AP": r["tau_ap"],
        "τ_AP 95%": _interval(r["tau_ap_low"], r["tau_ap_high"]),
        "τ compat": r["compat_tau"],
    }


def flat_row(row: MethodComparison) -> dict[str, object]:
    """A compare row with its alignment spread into columns such as best_vs_unacceptable_agree (the
    frame's topics left out as counts)."""
    flat: dict[str, object] = {k: v for k, v in row.items() if k not in ("alignment", "frame")}
    flat["ref_topics_left_out"] = len(row["frame"]["left_out"]["ref"])
    flat["qrels_topics_left_out"] = len(row["frame"]["left_out"]["qrels"])
    for pair, bucket in row["alignment"].items():
        flat.update({f"{pair}_{k}": v for k, v in bucket.items()})
    return flat


@commands.command()
@handles_errors
def probe(
    ctx: typer.Context,
    qrels: QrelsListOption,
    ref: RefOption = "human",
    limit: Annotated[int, typer.Option(min=1, help="Non-relevant pairs to perturb per judge.")] = 40,
    seed: SeedOption = 0,
    separate: Annotated[
        bool,
        typer.Option(
            "--separate", help="Each perturbation on its own (query words, claim, both) at the start, middle, end."
        ),
    ] = False,
    kind: Annotated[
        list[StuffingKind] | None, typer.Option("--kind", help="With --separate: only these perturbations (repeat).")
    ] = None,
    position: Annotated[
        list[StuffingPosition] | None,
        typer.Option("--position", help="With --separate: only these positions (repeat)."),
    ] = None,
    measure: MeasureOption = DEFAULT_MEASURE,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Stuff reference-non-relevant passages with the query and a claim of relevance; see how far
    the labels of each judge-made label set of --qrels (repeated) move (Alaofi et al. 2024).
    `--separate`: each perturbation alone, per judge its flip rate with a 95% Wilson interval and the
    runs the flipped passages would lift."""
    if separate:
        _probe_separately(ctx, qrels, ref, limit, seed, kind, position, measure, fmt)
        return
    rows = []
    with open_project(ctx) as project:
        for name in qrels:
            rows.append(progress_bar(project.probe(name, ref=ref, limit=limit, seed=seed), f"probe {name}"))
    if fmt is not OutputFormat.table:
        emit_records(rows, fmt)
        return
    emit_records(
        [
            {
                "label set": r["label_set"],
                "docs": r["documents"],
                "before": _rate(r["mean_original"]),
                "after": _rate(r["mean_perturbed"]),
                "shift": _rate(r["mean_shift"]),
                "up": _rate(r["moved_up"]),
                "made relevant": _rate(r["became_relevant"]),
                "calls": r["calls"],
            }
            for r in rows
        ],
        fmt,
        title=f"Mean label of {ref}-non-relevant passages before and after the probe",
    )


def _probe_separately(
    ctx: typer.Context,
    qrels: list[str],
    ref: str,
    limit: int,
    seed: int,
    kinds: list[StuffingKind] | None,
    positions: list[StuffingPosition] | None,
    measure: str,
    fmt: OutputFormat,
) -> None:
    """`probe --separate`: one row per judge × perturbation × position."""
    probes = []
    with open_project(ctx) as project:
        for name in qrels:
            found = project.probe_stuffing(
                name,
                ref=ref,
                limit=limit,
                seed=seed,
                kinds=[k.value for k in kinds] if kinds else ("query", "claim", "both"),
                positions=[p.value for p in positions] if positions else ("start", "middle", "end"),
                measure=measure,
            )
            probes.append(progress_bar(found, f"stuffing {name}"))
    if fmt is OutputFormat.json:
        emit_records(probes, fmt)
        return
    rows = [
        {
            "label set": p["label_set"],
            "perturbation": e["perturbation"],
            "position": e["position"],
            "docs": e["documents"],
            "flipped": e["flipped"],
            "flip rate": _rate(e["flip_rate"]),
            "95%": _interval(e["low"], e["high"]),
            "τ": e["kendall_tau"],
            "runs rising": ", ".join(e["runs_rising"]),
        }
        for p in probes
        for e in p["effects"]
    ]
    emit_records(rows, fmt, title=f"Flips of {ref}-non-relevant passages, one perturbation at a time")
