"""`studio assess …`: assessment campaigns with the LLM in the loop — an LLM label set's pool judged
by people under three conditions (manual, filtering, post-editing) on disjoint topics, and what
the LLM's help cost and changed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from studio.cli.assess_report import print_report
from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.options import FormatOption, LlmRelevantGradeOption, MeasureRowsOption, SeedOption
from studio.cli.output import OutputFormat, Part, emit_object, emit_parts, emit_records, stderr_console
from studio.domain.names import check_name

commands = typer.Typer(
    name="assess", help="Assessment campaigns: manual, filtering and post-editing.", no_args_is_help=True
)

CampaignName = Annotated[str, typer.Argument(help="The campaign (also its label set's name).")]
TOPICS_HELP = "A file of qids (one a line), or a count of topics drawn with --seed."
PLAN_PARTS = (Part("conditions", "Conditions"), Part("assessors", "Pairs per assessor", optional=True))
PROGRESS_PARTS = (
    Part("conditions", "Progress per condition"),
    Part("assessors", "Progress per assessor", optional=True),
)


@commands.command("plan")
@handles_errors
def plan_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Option("--name", help="The campaign's name (and its label set's).")],
    llm: Annotated[str, typer.Option("--llm", help="The LLM label set whose grades filter and are post-edited.")],
    pool: Annotated[
        str, typer.Option("--pool", help="qrels:NAME (a label set's pairs) or runs:K (every run's top K).")
    ],
    manual: Annotated[str | None, typer.Option("--manual", metavar="TOPICS", help=TOPICS_HELP)] = None,
    filtering: Annotated[str | None, typer.Option("--filtering", metavar="TOPICS", help=TOPICS_HELP)] = None,
    post_editing: Annotated[str | None, typer.Option("--post-editing", metavar="TOPICS", help=TOPICS_HELP)] = None,
    llm_relevant: LlmRelevantGradeOption = 1.0,
    assessors: Annotated[
        str | None, typer.Option("--assessors", help="Comma-separated names: each condition's pairs split among them.")
    ] = None,
    overlap: Annotated[
        float, typer.Option("--overlap", min=0.0, max=1.0, help="Share of each condition's pairs given to two.")
    ] = 0.0,
    seed: SeedOption = 0,
    recall_sample: Annotated[
        int,
        typer.Option(
            "--recall-sample",
            min=0,
            help="Dropped pairs drawn to be graded blind too: what filtering hides, estimated.",
        ),
    ] = 0,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Make a campaign: a pool per topic, topics assigned to the conditions, assessors given pairs.

    Filtering drops the pairs whose LLM grade is below --llm-relevant."""
    names = [check_name(part.strip(), "assessor") for part in assessors.split(",")] if assessors else []
    with open_project(ctx) as project:
        done = project.plan_campaign(
            name,
            llm=llm,
            pool=pool,
            manual=manual,
            filtering=filtering,
            post_editing=post_editing,
            llm_relevant=llm_relevant,
            assessors=names,
            overlap=overlap,
            seed=seed,
            recall_sample=recall_sample,
        )
    emit_parts(done, fmt, title=f"Campaign {name}", parts=PLAN_PARTS)


@commands.command("list")
@handles_errors
def list_command(ctx: typer.Context, fmt: FormatOption = OutputFormat.table) -> None:
    """The campaigns: LLM label set, pool, topics, pairs shown and judged."""
    with open_project(ctx) as project:
        rows = project.campaigns()
    emit_records(rows, fmt, title="Campaigns")


@commands.command("show")
@handles_errors
def show_command(ctx: typer.Context, campaign: CampaignName, fmt: FormatOption = OutputFormat.table) -> None:
    """A campaign's progress per condition and per assessor."""
    with open_project(ctx) as project:
        found = project.campaign(campaign)
    emit_parts(found, fmt, title=f"Campaign {campaign}", parts=PROGRESS_PARTS)


@commands.command("pairs")
@handles_errors
def pairs_command(
    ctx: typer.Context,
    campaign: CampaignName,
    assessor: Annotated[str | None, typer.Option("--assessor", help="Only the pairs given to this assessor.")] = None,
    remaining: Annotated[bool, typer.Option("--remaining", help="Only the pairs not graded yet.")] = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """The pairs put before people in walk order: qid, docid, condition, and the LLM's grade only
    where the condition shows it (post-editing): the list for people who grade elsewhere."""
    with open_project(ctx) as project:
        rows = project.campaign_pairs(campaign, assessor=assessor, remaining=remaining)
    emit_records(
        rows, fmt, title=f"Campaign {campaign}: {len(rows)} pairs", columns=["qid", "docid", "condition", "llm_grade"]
    )


@commands.command("import")
@handles_errors
def import_command(
    ctx: typer.Context,
    campaign: CampaignName,
    file: Annotated[Path, typer.Argument(help="A qrels file of grades for pairs the campaign shows.")],
    assessor: Annotated[str, typer.Option("--assessor", help="Whose grades these are.")],
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """An assessor's grades made elsewhere (a pair the campaign does not show refuses the file)."""
    with open_project(ctx) as project:
        done = project.import_campaign(campaign, file, assessor=assessor)
    emit_object(done, fmt, title=f"Imported into campaign {campaign}")


@commands.command("report")
@handles_errors
def report_command(
    ctx: typer.Context,
    campaign: CampaignName,
    measure: MeasureRowsOption = None,
    seed: SeedOption = 0,
    live: Annotated[
        bool,
        typer.Option(
            "--live", help="τ and the confusion from the LLM label set as it is today, not as the campaign kept it."
        ),
    ] = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """What the LLM's help cost and changed, per condition: pool reduction, grades per topic,
    assessor-hours, the confusion with the LLM, τ of the LLM's leaderboard; the anchoring effect.
    Every figure reads the LLM grades the campaign kept when planned; when the LLM set changed
    since, the report says what changed (stderr), and `--live` reads today's set instead."""
    with open_project(ctx) as project:
        found = project.campaign_report(campaign, measure, seed=seed, live=live)
    if found["llm_state"]["note"]:
        stderr_console().print(f"note: {found['llm_state']['note']}", markup=False, highlight=False)
    if fmt is OutputFormat.json:
        emit_object(found, fmt)
        return
    print_report(found, fmt)
