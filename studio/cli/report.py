"""`studio report --out DIR`: a self-contained, shareable report of the project."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.options import (
    DEFAULT_MEASURE,
    MeasureOption,
    OptionalRefOption,
    ScopeOption,
    TopicOption,
    TopicsFileOption,
)
from studio.cli.output import stderr_console
from studio.cli.topic_options import topic_choice
from studio.domain.frames import TopicScope

commands = typer.Typer()


@commands.command()
@handles_errors
def report(
    ctx: typer.Context,
    out: Annotated[
        Path,
        typer.Option("--out", "-o", help="Folder to write report.html, report.md and figures/ to.", show_default=False),
    ],
    ref: OptionalRefOption = None,
    measure: MeasureOption = DEFAULT_MEASURE,
    with_embeddings: Annotated[
        bool, typer.Option("--with-embeddings", help="Add Fréchet distances of embeddings (FD@10; loads torch).")
    ] = False,
    resamples: Annotated[int, typer.Option(min=1, help="Bootstrap resamples of the τ intervals.")] = 1000,
    scope: ScopeOption = TopicScope.common,
    topic: TopicOption = None,
    topics_file: TopicsFileOption = None,
) -> None:
    """Write a shareable report of the project: data, leaderboards, agreement, figures, banks, audit trail
    (against --ref: by default human, else the first label set).

    report.html is self-contained (inline CSS, figures as data URIs); report.md has the same tables and figures/*.png.
    """
    chosen = topic_choice(topic, topics_file, scope)
    with open_project(ctx) as project:
        written = project.write_report(
            out, ref=ref, measure=measure, resamples=resamples, with_embeddings=with_embeddings, topics=chosen
        )
    stderr_console().print(written.summary(), markup=False)
