"""`studio bank list|add|edit|weight|delete|merge|split|history`: audited test-bank edits."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

import typer

from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.grades import grade
from studio.cli.options import (
    DEFAULT_MEASURE,
    FormatOption,
    MeasureOption,
    OneTopicOption,
    OptionalRelevantOption,
    RefOption,
    RelevantOption,
    TopicOption,
)
from studio.cli.output import OutputFormat, emit_object, emit_records
from studio.domain.bank_results import NuggetizedBank
from studio.domain.choices import Importance, ItemKind, ModelBackend
from studio.domain.judging import JudgeConfig, JudgeProgress
from studio.domain.models import BankItem
from studio.domain.settings import OPENAI_API_KEY, STUDIO_PERSON

commands = typer.Typer(
    name="bank", help="Read and edit a test bank (every edit is an audited event).", no_args_is_help=True
)

Bank = Annotated[str, typer.Argument(help="Bank name (see `studio list banks`).")]
Item = Annotated[str, typer.Argument(help="Item id, e.g. 1001/4694fffb….")]
Note = Annotated[str | None, typer.Option(help="Why (kept with the edit).")]
Person = Annotated[str | None, typer.Option(envvar=STUDIO_PERSON, help="Who edits.")]


def _item(item: BankItem, fmt: OutputFormat, title: str) -> None:
    emit_object(asdict(item), fmt, title=title)


@commands.command("list")
@handles_errors
def list_items(
    ctx: typer.Context,
    bank: Bank,
    topic: OneTopicOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """The bank's current items."""
    with open_project(ctx) as project:
        emit_records(project.bank_editor(bank).items(topic), fmt, title=f"Bank {bank}")


@commands.command("add")
@handles_errors
def add(
    ctx: typer.Context,
    bank: Bank,
    qid: Annotated[str, typer.Argument(help="Topic id.")],
    text: Annotated[str, typer.Argument(help="The question or nugget.")],
    kind: Annotated[ItemKind, typer.Option(help="What the item is.")] = ItemKind.nugget,
    importance: Annotated[Importance | None, typer.Option(help="How much a nugget matters.")] = None,
    note: Note = None,
    person: Person = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Add an item to a topic."""
    level = None if importance is None else importance.value
    with open_project(ctx) as project:
        _item(
            project.bank_editor(bank, person).add(qid, text, kind=kind.value, importance=level, note=note),
            fmt,
            "Added",
        )


@commands.command("edit")
@handles_errors
def edit(
    ctx: typer.Context,
    bank: Bank,
    item: Item,
    text: Annotated[str, typer.Argument(help="New wording.")],
    note: Note = None,
    person: Person = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Reword an item (it keeps its id)."""
    with open_project(ctx) as project:
        _item(project.bank_editor(bank, person).edit(item, text=text, note=note), fmt, "Edited")


@commands.command("weight")
@handles_errors
def weight(
    ctx: typer.Context,
    bank: Bank,
    item: Item,
    importance: Annotated[Importance, typer.Argument(help="How much the nugget matters.")],
    note: Note = None,
    person: Person = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Mark an item vital or okay."""
    with open_project(ctx) as project:
        _item(project.bank_editor(bank, person).weight(item, importance.value, note=note), fmt, "Re-weighted")


@commands.command("delete")
@handles_errors
def delete(
    ctx: typer.Context,
    bank: Bank,
    item: Item,
    note: Note = None,
    person: Person = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Retire an item (its history stays)."""
    with open_project(ctx) as project:
        _item(project.bank_editor(bank, person).delete(item, note=note), fmt, "Deleted")


@commands.command("merge")
@handles_errors
def merge(
    ctx: typer.Context,
    bank: Bank,
    items: Annotated[list[str], typer.Argument(help="Two or more item ids.")],
    text: Annotated[str | None, typer.Option(help="Wording of the merged item.")] = None,
    note: Note = None,
    person: Person = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Replace several items of one topic by one."""
    with open_project(ctx) as project:
        _item(project.bank_editor(bank, person).merge(items, text=text, note=note), fmt, "Merged")


@commands.command("split")
@handles_errors
def split(
    ctx: typer.Context,
    bank: Bank,
    item: Item,
    texts: Annotated[list[str], typer.Argument(help="Two or more new wordings.")],
    note: Note = None,
    person: Person = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Replace one item by several."""
    with open_project(ctx) as project:
        parts = project.bank_editor(bank, person).split(item, texts, note=note)
    emit_records(
        [{"qid": p.qid, "item_id": p.item_id, "text": p.text, "importance": p.importance} for p in parts],
        fmt,
        title="Split into",
    )


@commands.command("history")
@handles_errors
def history(
    ctx: typer.Context,
    bank: Bank,
    limit: Annotated[int, typer.Option(min=1, help="How many.")] = 50,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """The bank's item events, newest first (imports, edits, who and why)."""
    with open_project(ctx) as project:
        emit_records(project.bank_editor(bank).history(limit), fmt, title=f"History of {bank}")


@commands.command("report")
@handles_errors
def report(
    ctx: typer.Context,
    bank: Bank,
    source: Annotated[str, typer.Option("--from", help="Label set of a rubric judge run with this bank.")],
    ref: RefOption = "human",
    min_grade: Annotated[float, typer.Option(parser=grade, help="Covered at item grade ≥ this.")] = 4.0,
    relevant: OptionalRelevantOption = None,
    measure: MeasureOption = DEFAULT_MEASURE,
    topic: TopicOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Diagnostics: spurious items, uncovered relevant documents (relevant in --ref at grade ≥
    --relevant), coverage and each item's effect on τ."""
    with open_project(ctx) as project:
        result = project.bank_report(
            bank, source, ref=ref, min_grade=min_grade, relevant=relevant, measure=measure, topics=topic
        )
    if fmt is OutputFormat.json:
        emit_object(result, fmt)
        return
    emit_records(
        result["spurious"],
        fmt,
        title="Spurious items (covered mostly by non-relevant documents)",
        columns=["qid", "item_id", "covered", "covered_nonrelevant", "text"],
    )
    typer.echo("")
    emit_records(result["uncovered_relevant"], fmt, title="Relevant documents no item covers")
    typer.echo("")
    emit_records(
        result["item_effect"][:20],
        fmt,
        title=f"Item effect on τ ({result['measure']}; all items: {result['tau_all_items']})",
        columns=["qid", "item_id", "tau_change", "tau_without", "text"],
    )


@commands.command("stale")
@handles_errors
def stale(
    ctx: typer.Context,
    source: Annotated[str, typer.Option("--from", help="Label set of a rubric judge run.")],
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """The cells bank edits made stale since the judge graded them (`studio judge --stale` grades them)."""
    with open_project(ctx) as project:
        rows = project.stale_cells(source)
    emit_records(rows, fmt, title=f"Stale cells of {source}", columns=["qid", "docid", "item_id", "reason"])


@commands.command("generate")
@handles_errors
def generate(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Name of the new bank.")],
    kind: Annotated[ItemKind, typer.Option(help="What the items are.")] = ItemKind.question,
    backend: Annotated[ModelBackend, typer.Option(help="Who writes the items.")] = ModelBackend.llamacpp,
    model: Annotated[str | None, typer.Option(help="GGUF path (llamacpp) or model name (openai).")] = None,
    prompt: Annotated[str | None, typer.Option(help="A custom generation prompt.")] = None,
    topic: TopicOption = None,
    max_items: Annotated[int, typer.Option(min=1, help="Items kept per topic.")] = 10,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint.")] = None,
    api_key_env: Annotated[str, typer.Option(help="Variable holding the API key.")] = OPENAI_API_KEY,
    replace: Annotated[bool, typer.Option("--replace", help="Regenerate an existing bank.")] = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Generate ~10 exam questions or nuggets per topic from the query alone (Rubric/EXAM prompts)."""
    config = JudgeConfig(
        method="generate",
        backend=backend.value,
        name=name,
        model=model,
        prompt=prompt,
        topics=topic,
        base_url=base_url,
        api_key_env=api_key_env,
    )
    with open_project(ctx) as project:
        events = project.generate_bank(config, kind.value, max_items=max_items, replace=replace)
        *_, summary = (event for event in events if not isinstance(event, JudgeProgress))  # what was made, last
    emit_object(summary, fmt, title=f"Generated {name}")


@commands.command("cover")
@handles_errors
def cover(
    ctx: typer.Context,
    bank: Bank,
    source: Annotated[str, typer.Option("--from", help="Label set of a rubric judge run with this bank.")],
    k: Annotated[int, typer.Option("-k", min=1, help="Depth of each run's ranking.")] = 10,
    min_grade: Annotated[float, typer.Option(parser=grade, help="Covered at item grade ≥ this.")] = 4.0,
    normalise: Annotated[bool, typer.Option("--normalise", help="Divide by what any document covers.")] = False,
    ref: RefOption = "human",
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Rubric-Cover@k leaderboard: the fraction of each topic's items a run's top k covers, with
    Kendall τ against --ref's leaderboard."""
    with open_project(ctx) as project:
        result = project.cover_leaderboard(source, bank, k=k, min_grade=min_grade, normalise=normalise, ref=ref)
    if fmt is OutputFormat.json:
        emit_object(result, fmt)
        return
    on = f" on {result['ref_topics']} of {result['topics']} topics" if "ref_topics" in result else ""
    title = f"{result['measure']} (Kendall τ against {ref}{on}: {result.get('kendall_tau')})"
    emit_records(result["leaderboard"], fmt, title=title)


@commands.command("nuggetize")
@handles_errors
def nuggetize_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Name of the new nugget bank.")],
    ref: RefOption = "human",
    relevant: RelevantOption = 2.0,
    backend: Annotated[ModelBackend, typer.Option(help="Who writes the nuggets.")] = ModelBackend.llamacpp,
    model: Annotated[str | None, typer.Option(help="GGUF path (llamacpp) or model name (openai).")] = None,
    topic: TopicOption = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint.")] = None,
    api_key_env: Annotated[str, typer.Option(help="Variable holding the API key.")] = OPENAI_API_KEY,
    replace: Annotated[bool, typer.Option("--replace", help="Rebuild an existing bank.")] = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """AutoNuggetizer: nuggets from the documents --ref judges relevant (grade ≥ --relevant), in windows
    of 10, vital/okay, top 20 per topic."""
    config = JudgeConfig(
        method="nuggetize",
        backend=backend.value,
        name=name,
        model=model,
        topics=topic,
        ref=ref,
        base_url=base_url,
        api_key_env=api_key_env,
    )
    with open_project(ctx) as project:
        # A NuggetizedTopic per topic (progress), then the NuggetizedBank.
        *_, made = project.nuggetize(config, relevant=relevant, replace=replace)
    if not isinstance(made, NuggetizedBank):
        raise RuntimeError("nuggetize ended without the bank it made")
    emit_object(asdict(made), fmt, title=f"Nuggetized {name}")
