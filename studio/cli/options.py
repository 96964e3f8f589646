"""The options many commands share, each declared once with one help text: `--format` and
`--measure`. A command whose option differs (in its default or in taking several) uses a named
variant from here, never a copy of its own (tests/cli/test_shared_options.py checks)."""

from __future__ import annotations

from typing import Annotated

import typer

from studio.cli.output import OutputFormat
from studio.domain.choices import DEFAULT_MEASURES

# The --format option of every command that prints results.
FormatOption = Annotated[OutputFormat, typer.Option("--format", "-f", help="How to print the result.")]

# The measure of a command's leaderboards when --measure is not given.
DEFAULT_MEASURE = "nDCG@10"

# One measure (default DEFAULT_MEASURE): what a command ranks the runs by.
MeasureOption = Annotated[str, typer.Option("--measure", "-m", help="Leaderboard measure, e.g. nDCG@10, P(rel=2)@10.")]

# Several measures, a leaderboard row each (None: DEFAULT_MEASURES).
MeasuresOption = Annotated[
    list[str] | None,
    typer.Option("--measure", "-m", help=f"Measures (repeat); default {' '.join(DEFAULT_MEASURES)}."),
]

# Several measures, a correlation row each (None: DEFAULT_MEASURE alone).
MeasureRowsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--measure",
        "-m",
        help="Measure, e.g. nDCG@10, P(rel=2)@10; repeat for a row per measure (UMBRELA's Table 2).",
    ),
]
