"""`studio judges list | failures | reparse | extract-answers | verify | export-batch | import-batch`:
inspect and manage the judge runs of the project (`studio judge` runs one).

The actions are also reachable through the older flags of `studio judge` (`--failures`,
`--reparse`, `--extract-answers`, `--verify`, `--export-batch`, `--import-batch`), which call the
same functions below so both spellings print the same thing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.listing import Listing, emit_listing
from studio.cli.options import FormatOption, OptionalRefOption, OptionalSeedOption, TopicOption
from studio.cli.output import OutputFormat, emit_object, emit_records
from studio.cli.pools import POOL_HELP
from studio.cli.pools import pool as pool_value
from studio.cli.progress import progress_bar
from studio.domain.choices import ConstrainMode, JudgeMethod
from studio.domain.judging import JudgeConfig
from studio.services.project import Project

commands = typer.Typer(name="judges", help="Inspect and manage judge runs.", no_args_is_help=True)

LabelSet = Annotated[
    str, typer.Argument(help="Label set a judge wrote (see `studio judges list`).", show_default=False)
]


# -- the actions, shared with the older flags of `studio judge` ----------------------------------


def show_failures(project: Project, label_set: str, fmt: OutputFormat) -> None:
    emit_records(project.judge_failures(label_set), fmt, title=f"Failures of {label_set}")


def show_reparse(project: Project, label_set: str, fmt: OutputFormat) -> None:
    emit_object(project.reparse_judge(label_set), fmt, title=f"Re-parsed {label_set}")


def show_extracted_answers(project: Project, label_set: str, fmt: OutputFormat) -> None:
    counts = progress_bar(project.extract_answers(label_set), f"answers of {label_set}")
    emit_object(counts, fmt, title=f"Answers of {label_set}")


def show_verification(project: Project, label_set: str, fmt: OutputFormat) -> None:
    emit_records(project.verification(label_set), fmt, title=f"Verification of {label_set}")


def write_batch(project: Project, config: JudgeConfig, path: Path, fmt: OutputFormat) -> None:
    written = project.export_batch(config, path)
    emit_object({"file": str(path), "requests": written}, fmt, title="Exported")


def read_batch(project: Project, config: JudgeConfig, path: Path, fmt: OutputFormat) -> None:
    counts = project.import_batch(config, path)
    emit_object({"file": str(path), **counts}, fmt, title="Imported")


# -- the commands ---------------------------------------------------------------------------------


@commands.command("list")
@handles_errors
def list_runs(ctx: typer.Context, fmt: FormatOption = OutputFormat.table) -> None:
    """Every judge run: label set, method, backend, model, pairs, calls, cache hits, failures.

    The same list as `studio list judges`."""
    with open_project(ctx) as project:
        emit_listing(project, Listing.judges, fmt)


@commands.command()
@handles_errors
def failures(ctx: typer.Context, name: LabelSet, fmt: FormatOption = OutputFormat.table) -> None:
    """The newest run's failures (no readable label) with the model's raw output."""
    with open_project(ctx) as project:
        show_failures(project, name, fmt)


@commands.command()
@handles_errors
def reparse(ctx: typer.Context, name: LabelSet, fmt: FormatOption = OutputFormat.table) -> None:
    """Parse the newest run's stored outputs again with the current parser (no model call)."""
    with open_project(ctx) as project:
        show_reparse(project, name, fmt)


@commands.command("extract-answers")
@handles_errors
def extract_answers(ctx: typer.Context, name: LabelSet, fmt: FormatOption = OutputFormat.table) -> None:
    """Extract each document's answer to each item of a rubric judge's bank (calls cached)."""
    with open_project(ctx) as project:
        show_extracted_answers(project, name, fmt)


@commands.command()
@handles_errors
def verify(ctx: typer.Context, name: LabelSet, fmt: FormatOption = OutputFormat.table) -> None:
    """Per item, the documents by grade with the answers extracted from them."""
    with open_project(ctx) as project:
        show_verification(project, name, fmt)


# The judge options a batch file depends on: they decide the pool, the prompts and so the call
# keys. None means "not given": the saved configuration, or `studio judge`'s default, stands.
Method = Annotated[JudgeMethod | None, typer.Option(help="How the judge labels a pair.")]
Model = Annotated[str | None, typer.Option(help="Model name on the server.")]
Pool = Annotated[str | None, typer.Option(parser=pool_value, help=POOL_HELP)]
Limit = Annotated[int | None, typer.Option(min=1, help="At most this many pairs.")]
BaseUrl = Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1.")]
ApiKeyEnv = Annotated[str | None, typer.Option(help="Environment variable holding the API key.")]
Bank = Annotated[str | None, typer.Option(help="Test bank the rubric methods grade with.")]
Prompt = Annotated[str | None, typer.Option(help="A custom prompt file or template folder.")]
Constrain = Annotated[
    ConstrainMode | None,
    typer.Option(help="Constrain answers to the labels: auto asks the server (api.openai.com: json-schema)."),
]


@commands.command("export-batch")
@handles_errors
def export_batch(
    ctx: typer.Context,
    name: LabelSet,
    out: Annotated[
        Path, typer.Option("--out", "-o", help="The OpenAI Batch input JSONL file to write.", show_default=False)
    ],
    method: Method = None,
    model: Model = None,
    pool: Pool = None,
    topics: TopicOption = None,
    limit: Limit = None,
    ref: OptionalRefOption = None,
    base_url: BaseUrl = None,
    api_key_env: ApiKeyEnv = None,
    seed: OptionalSeedOption = None,
    bank: Bank = None,
    prompt: Prompt = None,
    constrain: Constrain = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Write the requests the call cache has no answer for as an OpenAI Batch input file (no call).

    The judge is the label set's newest judge run as it was configured; the options given replace
    its values. A label set no judge has written yet takes `studio judge`'s defaults with the
    openai backend. Split jobs over 50,000 requests with --topic or --limit."""
    given = dict(
        method=method,
        model=model,
        pool=pool,
        topics=topics,
        limit=limit,
        ref=ref,
        base_url=base_url,
        api_key_env=api_key_env,
        seed=seed,
        bank=bank,
        prompt=prompt,
        constrain=constrain,
    )
    with open_project(ctx) as project:
        write_batch(project, project.batch_config(name, **given), out, fmt)


@commands.command("import-batch")
@handles_errors
def import_batch(
    ctx: typer.Context,
    name: LabelSet,
    file: Annotated[Path, typer.Argument(help="An OpenAI Batch output JSONL file.", show_default=False)],
    method: Method = None,
    model: Model = None,
    pool: Pool = None,
    topics: TopicOption = None,
    limit: Limit = None,
    ref: OptionalRefOption = None,
    base_url: BaseUrl = None,
    api_key_env: ApiKeyEnv = None,
    seed: OptionalSeedOption = None,
    bank: Bank = None,
    prompt: Prompt = None,
    constrain: Constrain = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Store the answers of an OpenAI Batch output file in the call cache (one transaction).

    The judge is chosen as for export-batch. `studio judge` with the same options then finds every
    imported answer in the cache and makes no call for it."""
    given = dict(
        method=method,
        model=model,
        pool=pool,
        topics=topics,
        limit=limit,
        ref=ref,
        base_url=base_url,
        api_key_env=api_key_env,
        seed=seed,
        bank=bank,
        prompt=prompt,
        constrain=constrain,
    )
    with open_project(ctx) as project:
        read_batch(project, project.batch_config(name, **given), file, fmt)
