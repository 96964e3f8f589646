"""`studio calibrate`: an LLM label set mapped to people's grades, judged cross-fitted by topic."""

from __future__ import annotations

from typing import Annotated

import typer

from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.options import DEFAULT_MEASURE, FormatOption, MeasureOption, QrelsOption, SeedOption
from studio.cli.output import OutputFormat, emit_records
from studio.domain.choices import CalibrationMethod
from studio.domain.label_set_results import CalibrationMade
from studio.domain.specs import CalibrationSpec

commands = typer.Typer()


@commands.command()
@handles_errors
def calibrate(
    ctx: typer.Context,
    qrels: QrelsOption,
    gold: Annotated[str, typer.Option("--gold", help="The people's label set it is mapped to.")],
    name: Annotated[str, typer.Option("--name", help="Name of the calibrated (derived) label set.")],
    method: Annotated[
        CalibrationMethod,
        typer.Option(
            "--method", help="isotonic: monotone regression of the gold grade; ordinal: proportional-odds model."
        ),
    ] = CalibrationMethod.isotonic,
    folds: Annotated[int, typer.Option("--folds", min=2, help="Cross-fitting folds (by topic).")] = 5,
    seed: SeedOption = 0,
    measure: MeasureOption = DEFAULT_MEASURE,
    replace: Annotated[bool, typer.Option("--replace", help="Calibrate an existing calibrated set again.")] = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Map an LLM label set's grades (--qrels; its expected grades where the judge gave label
    distributions) to a gold label set's; κ and τ are cross-fitted (the seed splits the topics into
    folds), beside the raw set's on the same gold pairs. The calibrated set follows its sources when
    they change."""
    spec = CalibrationSpec(qrels, gold, name, method.value, folds, seed, measure, replace)
    with open_project(ctx) as project:
        done = project.calibrate(spec)
    if fmt is OutputFormat.json:
        emit_records([done], fmt)
        return
    _print_figures(done, fmt, raw=qrels, calibrated=name, gold=gold, method=method.value, measure=measure)
    if fmt is OutputFormat.table:
        typer.echo("")
        _print_curve(done, fmt)


def _print_figures(
    done: CalibrationMade, fmt: OutputFormat, *, raw: str, calibrated: str, gold: str, method: str, measure: str
) -> None:
    """κ, τ and the mean grade of the raw set and of the calibrated one, on the same gold pairs."""
    emit_records(
        [
            {
                "label set": raw,
                "κ graded": done["kappa_raw"],
                "κ linear": done["kappa_linear_raw"],
                f"τ {measure}": done["tau_raw"],
                "mean grade": done["mean_raw"],
            },
            {
                "label set": calibrated,
                "κ graded": done["kappa_calibrated"],
                "κ linear": done["kappa_linear_calibrated"],
                f"τ {measure}": done["tau_calibrated"],
                "mean grade": done["mean_calibrated"],
            },
        ],
        fmt,
        title=(
            f"Against {gold} on {done['pairs']} gold pairs of {done['topics']} topics, cross-fitted in "
            f"{done['folds']} folds ({method}; mean gold grade {done['mean_gold']})"
        ),
    )


def _print_curve(done: CalibrationMade, fmt: OutputFormat) -> None:
    emit_records(
        [
            {
                "LLM value": f"{b['low']:.3g}–{b['high']:.3g}",
                "pairs": b["pairs"],
                "mean gold": b["mean_gold"],
                "map": b["fitted"],
            }
            for b in done["curve"]
        ],
        fmt,
        title="Calibration curve (map fitted on all gold pairs)",
    )
