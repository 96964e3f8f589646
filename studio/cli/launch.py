"""`studio demo | tui`: open the studio (the Textual app) on the sample project or on a project.

What the command line names (the label sets, the audit) is checked before the app starts: a name
the project lacks is refused at once with exit status 2 and the names there are, instead of a
screen that waits forever or a selector that fails when opened. So is the person's keymap file
(`studio.domain.keymap`): one that is not TOML, names a binding the studio lacks, or gives a key
Textual does not know or another binding has is refused naming the file, the line and the reason.
The app needs a terminal to read keys from and draw on; without one it is refused too.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, TextIO

import typer

from studio.cli.context import open_project, options
from studio.cli.errors import handles_errors
from studio.cli.listing import print_overview
from studio.cli.options import (
    FormatOption,
    OptionalQrelsOption,
    OptionalRefOption,
    ScopeOption,
    TopicOption,
    TopicsFileOption,
)
from studio.cli.output import OutputFormat, stderr_console
from studio.cli.topic_options import topic_choice
from studio.domain.choices import ScreenName
from studio.domain.errors import UsageError
from studio.domain.frames import EVERY_TOPIC, TopicChoice, TopicScope
from studio.domain.keymap import load_keymap
from studio.domain.settings import STUDIO_ASSESSOR, STUDIO_PERSON
from studio.services.project import Project

commands = typer.Typer()


@commands.command()
@handles_errors
def demo(
    ctx: typer.Context,
    db: Annotated[Path | None, typer.Option("--db", help="Where to build it (default: the user data folder).")] = None,
    no_tui: Annotated[bool, typer.Option("--no-tui", help="Print the overview and exit.")] = False,
    rebuild: Annotated[
        bool,
        typer.Option("--rebuild", help="Build it afresh, dropping what was written into it (a copy is kept)."),
    ] = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Build the bundled sample project (once) and open the studio on it. It lives in the user data
    folder (or where --db says; never where $STUDIO_DB says, which names a person's own project), and
    --rebuild replaces only a sample project, says what it drops and keeps the old file beside it."""
    chosen = options(ctx)
    path = Project.demo_path(db or (None if chosen.project_from_environment else chosen.project_file))
    fresh = rebuild or not path.exists()
    if rebuild:
        aside = Project.set_aside_sample(path)
        if aside["copy"] is not None:
            stderr_console().print(
                f"rebuilding drops what was written into the sample since it was built: {', '.join(aside['dropped'])};"
                f" the old file is kept at {aside['copy']}",
                markup=False,
                highlight=False,
            )
    project = Project.sample(path, rebuild=rebuild)
    stderr_console().print(f"{'built' if fresh else 'opened'} the sample project at {path}")
    if no_tui:
        with project:
            print_overview(project.overview(topics=fmt is OutputFormat.json), fmt)
        return
    _run_tui(project, screen=ScreenName.review)


@commands.command()
@handles_errors
def tui(
    ctx: typer.Context,
    screen: Annotated[ScreenName, typer.Option(help="Screen to open.")] = ScreenName.overview,
    ref: OptionalRefOption = None,
    qrels: OptionalQrelsOption = None,
    person: Annotated[
        str | None,
        typer.Option(
            "--person",
            "--assessor",
            envvar=[STUDIO_PERSON, STUDIO_ASSESSOR],
            help=(
                "Who reviews, and grades a blind audit as its assessor (default: on a team's copy the member's"
                " PostgreSQL role, else the OS user name)."
            ),
        ),
    ] = None,
    audit: Annotated[
        str | None, typer.Option(help="Grade this audit's sample blind, in its random order (see `studio audit plan`).")
    ] = None,
    assess: Annotated[
        str | None,
        typer.Option(help="Grade this campaign's pairs as their conditions show them (see `studio assess plan`)."),
    ] = None,
    answers: Annotated[
        str | None,
        typer.Option(help="Keep or override this answers label set's verdicts, one answer at a time (Answers screen)."),
    ] = None,
    scope: ScopeOption = TopicScope.common,
    topic: TopicOption = None,
    topics_file: TopicsFileOption = None,
) -> None:
    """Open the studio on the project (the Leaderboard and Review compare on the topics both label
    sets label, or on --topic / --topics-file's, shown in the header).

    --ref is the reference label set (default: human), --qrels the audited one (default: the newest
    LLM label set)."""
    chosen = topic_choice(topic, topics_file, scope)
    _run_tui(
        open_project(ctx),
        screen=screen,
        ref=ref,
        qrels=qrels,
        person=person,
        audit=audit,
        assess=assess,
        topics=chosen,
        answers=answers,
    )


def _run_tui(
    project: Project,
    *,
    screen: ScreenName,
    ref: str | None = None,
    qrels: str | None = None,
    person: str | None = None,
    audit: str | None = None,
    assess: str | None = None,
    topics: TopicChoice = EVERY_TOPIC,
    answers: str | None = None,
) -> None:
    try:
        check_choices(project, ref=ref, qrels=qrels, audit=audit, assess=assess)
        check_answers_set(project, answers)
        project.check_topics(topics)
        keymap = load_keymap()  # a bad keymap file is refused before the screen opens
        check_terminal(sys.stdin, sys.stderr)
    except BaseException:
        project.close()
        raise
    # Imported here so that headless commands never load Textual.
    from studio.tui.app import run_studio

    status = run_studio(
        project,
        screen=screen.value,
        ref=ref,
        qrels=qrels,
        person=person,
        audit=audit,
        assess=assess,
        keymap=keymap,
        topics=topics,
        answers=answers,
    )
    if status:
        raise typer.Exit(status)


def check_choices(
    project: Project, *, ref: str | None, qrels: str | None, audit: str | None, assess: str | None = None
) -> None:
    """Refuse a label set, an audit or a campaign the project lacks, naming the ones it has (UsageError: exit 2)."""
    names = [str(row["name"]) for row in project.label_sets()]
    known = ", ".join(names) if names else "none yet (studio import qrels FILE)"
    for option, name in (("--ref", ref), ("--qrels", qrels)):
        if name is not None and name not in names:
            raise UsageError(f"{option} {name}: the project has no such label set; its label sets: {known}")
    if ref is not None and ref == qrels:
        raise UsageError(f"--ref and --qrels both name {ref}: Review compares two label sets; its label sets: {known}")
    if audit is not None:
        audits = [str(row["audit"]) for row in project.audits()]
        if audit not in audits:
            have = ", ".join(audits) if audits else "none yet (studio audit plan --qrels LABELS --budget N --name NAME)"
            raise UsageError(f"--audit {audit}: the project has no such audit; its audits: {have}")
    if assess is not None:
        campaigns = [row["campaign"] for row in project.campaigns()]
        if assess not in campaigns:
            have = ", ".join(campaigns) if campaigns else "none yet (studio assess plan --name NAME …)"
            raise UsageError(f"--assess {assess}: the project has no such campaign; its campaigns: {have}")


def check_answers_set(project: Project, answers: str | None) -> None:
    """Refuse an --answers set that labels no generated answer, naming the ones that do (exit 2)."""
    if answers is None:
        return
    sets = project.answer_sets()
    if answers not in sets:
        have = ", ".join(sets) if sets else "none yet (studio judge --answers, studio import answer-labels)"
        raise UsageError(
            f"--answers {answers}: the project has no such answers label set; its answers label sets: {have}"
        )


def check_terminal(keys: TextIO, screen: TextIO) -> None:
    """The studio reads keys from stdin and draws on stderr, as Textual does: both must be terminals
    (without one it would draw into a file or wait for keys that never come)."""
    for name, stream in (("stdin", keys), ("stderr", screen)):
        if not stream.isatty():
            raise UsageError(
                f"the studio needs a terminal and {name} is not one; "
                "`studio demo --no-tui` and the other commands work without one"
            )
