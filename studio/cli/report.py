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
from studio.cli.study_options import BinariseRef, JudgeRelevant, PoolCollections, RefRelevant, Variance
from studio.cli.topic_options import topic_choice
from studio.domain.choices import VarianceKind
from studio.domain.frames import TopicScope
from studio.domain.prompt_study import StudyOptions

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
    ref_relevant: RefRelevant = 2.0,
    relevant: JudgeRelevant = 1.0,
    variance: Variance = VarianceKind.sample,
    binarise_ref: BinariseRef = None,
    pool_collections: PoolCollections = False,
) -> None:
    """Write a shareable report of the project: data, leaderboards, agreement, figures, banks, audit trail
    (against --ref: by default human, else the first label set).

    report.html is self-contained (inline CSS, figures as data URIs); report.md has the same tables and figures/*.png.
    The Prompt sensitivity section takes `studio sensitivity report`'s options (--ref-relevant, --relevant,
    --variance, --binarise-ref, --pool-collections).
    """
    chosen = topic_choice(topic, topics_file, scope)
    study = StudyOptions(
        ref_relevant,
        relevant,
        binarise_ref,
        pool_collections,
        "population" if variance is VarianceKind.population else "sample",
    )
    with open_project(ctx) as project:
        written = project.write_report(
            out,
            ref=ref,
            measure=measure,
            resamples=resamples,
            with_embeddings=with_embeddings,
            topics=chosen,
            study=study,
        )
    stderr_console().print(written.summary(), markup=False)
