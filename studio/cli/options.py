"""The options many commands share, each declared once, with one help text and one parser:
`--format`, `--measure`, `--qrels`, `--ref`, `--seed`, `--llm-relevant`, `--relevant`, `--topic`,
`--topics-file` and `--topics`.

A command takes an alias from here (`qrels: QrelsOption`); where it needs the option with another
type (optional, repeated, a default of its own), a named variant of the same declaration, never
a copy of its own (tests/cli/test_shared_options.py checks both, statically and on the command
tree). What an option means for one command (which label set `--qrels` names there, what
`--relevant` decides) its docstring says. The command reference (docs/cli.md) shows each use's
type, default and whether it repeats.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from studio.cli.grades import grade
from studio.cli.output import OutputFormat
from studio.domain.choices import DEFAULT_MEASURES
from studio.domain.frames import TopicScope

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

# -- label sets ----------------------------------------------------------------------------------

_QRELS = typer.Option("--qrels", help="The label set the command works on (a name `studio list qrels` shows).")
QrelsOption = Annotated[str, _QRELS]
OptionalQrelsOption = Annotated[str | None, _QRELS]
QrelsListOption = Annotated[list[str], _QRELS]  # repeated: several label sets

_REF = typer.Option("--ref", help="The reference label set the command measures against (e.g. the human one).")
RefOption = Annotated[str, _REF]
OptionalRefOption = Annotated[str | None, _REF]

# -- grades --------------------------------------------------------------------------------------

LLM_RELEVANT_HELP = (
    "The audited label set's own lowest relevant grade (e.g. 1 for a 0/1 judge); the reference and the "
    "measure's rel= keep theirs."
)


def llm_relevant_option(*aliases: str) -> Any:
    """`--llm-relevant` (after `aliases`, for a command that knew it by another name first)."""
    return typer.Option(*aliases, "--llm-relevant", parser=grade, help=LLM_RELEVANT_HELP)


LlmRelevantOption = Annotated[float | None, llm_relevant_option()]
LlmRelevantGradeOption = Annotated[float, llm_relevant_option()]  # with a default grade of its own

_RELEVANT = typer.Option("--relevant", parser=grade, help="The lowest grade counted relevant (grade ≥ this).")
RelevantOption = Annotated[float, _RELEVANT]
OptionalRelevantOption = Annotated[float | None, _RELEVANT]

# -- random draws --------------------------------------------------------------------------------

_SEED = typer.Option("--seed", help="Seed of the command's random draws: the same seed, the same result.")
SeedOption = Annotated[int, _SEED]
OptionalSeedOption = Annotated[int | None, _SEED]

# -- topics --------------------------------------------------------------------------------------

ScopeOption = Annotated[
    TopicScope,
    typer.Option(
        "--topics",
        help="common: both label sets on the topics both label (the default); own: each on its own topics "
        "(conditions judged on disjoint topics).",
    ),
]
TopicOption = Annotated[
    list[str] | None,
    typer.Option("--topic", metavar="QID", help="Only this topic (repeat for more)."),
]
# A command that shows one topic at a time (`bank list`): the same flag, taken once.
OneTopicOption = Annotated[str | None, typer.Option("--topic", metavar="QID", help="Only this topic.")]
TopicsFileOption = Annotated[
    Path | None,
    typer.Option(
        "--topics-file",
        metavar="FILE",
        help="Only the topics listed in FILE: one qid per line, or a topics, qrels or run file (first column).",
    ),
]
