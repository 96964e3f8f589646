"""`studio judge`: run an LLM judge into a label set, with live progress on stderr."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, TypeVar

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.output import OutputFormat, emit_object, emit_records, stderr_console
from studio.domain.choices import BackendName, DerivedScore, JudgeMethod
from studio.domain.errors import UsageError
from studio.services.judging.config import JudgeConfig, JudgeProgress, JudgeSummary
from studio.services.judging.run import run_judge

T = TypeVar("T")


commands = typer.Typer()


@commands.command()
@handles_errors
def judge(
    ctx: typer.Context,
    method: Annotated[JudgeMethod, typer.Option(help="How the judge labels a pair.")] = JudgeMethod.umbrela,
    backend: Annotated[BackendName, typer.Option(
        help="llamacpp (local GGUF), openai (any compatible server) or simulated.")] = BackendName.llamacpp,
    name: Annotated[str | None, typer.Option(help="Label set to write (created when new; re-running resumes).")] = None,
    pool: Annotated[str, typer.Option(help="qrels:NAME, runs:K, holes:K or responses.")] = "qrels:human",
    model: Annotated[str | None, typer.Option(
        help="GGUF path (llamacpp), model name (openai) or sentence-transformers folder (embedding).")] = None,
    prompt: Annotated[str | None, typer.Option(help="A custom prompt file or template folder.")] = None,
    topics: Annotated[list[str] | None, typer.Option("--topic", help="Only these topics (repeat).")] = None,
    limit: Annotated[int | None, typer.Option(help="At most this many pairs.")] = None,
    ref: Annotated[str, typer.Option(
        help="Reference label set (holes pool, simulated judge, embedding exemplars).")] = "human",
    bank: Annotated[str | None, typer.Option(help="Test bank the rubric methods grade with.")] = None,
    kappa: Annotated[float, typer.Option(help="Target agreement of the simulated judge.")] = 0.6,
    seed: Annotated[int, typer.Option(help="Seed of sampling and decoding.")] = 0,
    threads: Annotated[int | None, typer.Option(help="CPU threads for llama.cpp.")] = None,
    base_url: Annotated[str | None, typer.Option(
        help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1.")] = None,
    api_key_env: Annotated[str, typer.Option(help="Environment variable holding the API key.")] = "OPENAI_API_KEY",
    concurrency: Annotated[int, typer.Option(help="Requests in flight (openai).")] = 4,
    timeout: Annotated[float, typer.Option(help="Seconds per request (openai).")] = 60.0,
    retries: Annotated[int, typer.Option(help="Retries of a transient failure (openai).")] = 5,
    price_input: Annotated[float | None, typer.Option(help="Price per million input tokens (openai).")] = None,
    price_output: Annotated[float | None, typer.Option(help="Price per million output tokens (openai).")] = None,
    failures: Annotated[bool, typer.Option("--failures", help="List the newest run's failures instead.")] = False,
    stale: Annotated[bool, typer.Option(
        "--stale", help="Grade only the cells a bank edit made stale (the newest judge run as it was).")] = False,
    extract_answers: Annotated[bool, typer.Option(
        "--extract-answers", help="Extract each document's answer to each item, for verification.")] = False,
    verify: Annotated[bool, typer.Option("--verify", help="List item grades with the extracted answers.")] = False,
    reparse: Annotated[bool, typer.Option("--reparse", help="Parse the newest outputs again (no calls).")] = False,
    export_batch: Annotated[Path | None, typer.Option(
        help="Write the pending requests as an OpenAI Batch JSONL file instead of calling (openai).")] = None,
    import_batch: Annotated[Path | None, typer.Option(
        help="Store an OpenAI Batch output JSONL file in the call cache instead of calling (openai).")] = None,
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f")] = OutputFormat.table,
) -> None:
    """Label a pool of pairs with an LLM judge; every call is cached in the project file."""
    label_set = name or f"{method.value}-{backend.value}"
    with open_project(ctx) as project:
        if failures:
            emit_records(project.judge_failures(label_set), fmt, title=f"Failures of {label_set}")
            return
        if extract_answers or verify:
            from studio.services.rubric import verification

            if extract_answers:
                *_, counts = verification.extract_answers(project.db, label_set)
                emit_object(counts if isinstance(counts, dict) else {}, fmt, title=f"Answers of {label_set}")
            else:
                rows = verification.verification(project.db, label_set)
                emit_records(rows, fmt, title=f"Verification of {label_set}")
            return
        if reparse:
            emit_object(project.reparse_judge(label_set), fmt, title=f"Re-parsed {label_set}")
            return
        config = JudgeConfig(
            method=method.value, backend=backend.value, name=label_set, pool=pool, model=model, prompt=prompt,
            topics=topics, limit=limit, ref=ref, kappa=kappa, seed=seed, threads=threads, base_url=base_url,
            api_key_env=api_key_env, concurrency=concurrency, timeout=timeout, retries=retries,
            price_input=price_input, price_output=price_output, bank=bank,
        )
        if stale:
            from studio.services.judging.config import last_config

            config = last_config(project.db, label_set)
        if export_batch or import_batch:
            _batch(project, config, export_batch, import_batch, fmt)
            return
        if method is JudgeMethod.embedding:
            from studio.services.meta.embeddings import embedding_judge

            summary = embedding_judge(project.db, config)
        else:
            summary = _run_with_progress(project, config, stale_only=stale)
        for changed in [label_set, *summary.extra.get("derived_updated", [])]:
            project.engine.forget_labels(changed)
    emit_object(summary.as_dict(), fmt, title=f"Judged into {label_set}")


def _batch(project: object, config: JudgeConfig, export_to: Path | None, import_from: Path | None,
           fmt: OutputFormat) -> None:
    """`--export-batch` / `--import-batch`: move requests and answers through files, no calls."""
    from studio.services.judging import batch
    from studio.services.project import Project

    assert isinstance(project, Project)
    if export_to and import_from:
        raise UsageError("give --export-batch or --import-batch, not both")
    if export_to:
        written = batch.export_batch(project.db, config, export_to)
        emit_object({"file": str(export_to), "requests": written}, fmt, title="Exported")
    elif import_from:
        counts = batch.import_batch(project.db, config, import_from)
        emit_object({"file": str(import_from), **counts}, fmt, title="Imported")


def _run_with_progress(project: object, config: JudgeConfig, *, stale_only: bool = False) -> JudgeSummary:
    from studio.services.project import Project

    assert isinstance(project, Project)
    summary = progress_bar(run_judge(project.db, config, stale_only=stale_only), f"{config.method} → {config.name}")
    assert isinstance(summary, JudgeSummary)
    if not stderr_console().is_terminal:
        stderr_console().print(f"judged {summary.pairs} pairs: {summary.calls} calls, {summary.cache_hits} cached, "
                               f"{summary.failures} failures in {summary.seconds:.1f} s")
    return summary


def progress_bar(events: Iterable[JudgeProgress | T], description: str) -> T:
    """Show the progress events of long work on stderr (a terminal only); return its last event."""
    console = stderr_console()
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[stats]}"), TimeRemainingColumn())
    result: list[T] = []
    with Progress(*columns, console=console, transient=False, disable=not console.is_terminal) as bar:
        task = bar.add_task(description, total=None, stats="")
        for event in events:
            if isinstance(event, JudgeProgress):
                bar.update(task, total=event.total, completed=event.done,
                           stats=f"{event.rate:.1f}/s · {event.cache_hits} cached · {event.failures} failed")
            else:
                result.append(event)
    if not result:
        raise RuntimeError(f"{description}: the work ended without a result")
    return result[-1]


@commands.command()
@handles_errors
def derive(
    ctx: typer.Context,
    source: Annotated[str, typer.Option("--from", help="Label set of a rubric judge (exam-question/exam-nugget).")],
    bank: Annotated[str, typer.Option(help="The bank its items come from.")],
    score: Annotated[DerivedScore, typer.Option(
        help="How a document's item grades become its grade.")] = DerivedScore.exam_binary,
    name: Annotated[str | None, typer.Option(help="Label set to write (default: SCORE-of-SOURCE).")] = None,
    min_grade: Annotated[float, typer.Option(help="An item counts as answered/covered at grade ≥ this.")] = 4.0,
    replace: Annotated[bool, typer.Option("--replace", help="Recompute an existing derived set.")] = False,
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f")] = OutputFormat.table,
) -> None:
    """A derived label set from item grades: Exam-Binary, Exam-Graded max/mean, Rubric-Qrels."""
    from studio.services.rubric.derive import derive_label_set

    label_set = name or f"{score.value}-of-{source}"
    with open_project(ctx) as project:
        result = derive_label_set(project.db, source, bank, score.value, label_set, min_grade=min_grade,
                                  replace=replace)
        project.engine.forget_labels(label_set)
    emit_object(result, fmt, title=f"Derived {label_set}")
