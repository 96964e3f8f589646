"""`studio judge | derive`: run an LLM judge into a label set, with live progress on stderr; derive
a label set from a rubric judge's item grades.

`studio judges …` inspects and manages judge runs. The flags of `studio judge` that did so before
it existed (`--failures`, `--reparse`, `--extract-answers`, `--verify`, `--export-batch`,
`--import-batch`) keep working for the scripts that use them, hidden from `--help`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from studio.cli import judges
from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.grades import grade
from studio.cli.options import FormatOption, RefOption, SeedOption, TopicOption
from studio.cli.output import OutputFormat, emit_object, stderr_console
from studio.cli.pools import POOL_HELP
from studio.cli.pools import pool as pool_value
from studio.cli.progress import progress_bar
from studio.domain.choices import BackendName, ConstrainMode, DerivedScore, ExemplarChoice, JudgeMethod
from studio.domain.errors import CallsFailed, UsageError
from studio.domain.judging import JudgeConfig, JudgeSummary
from studio.domain.settings import OPENAI_API_KEY
from studio.services.project import Project

commands = typer.Typer()

# The options of `studio judge` too long for a line of its signature.
Backend = Annotated[
    BackendName, typer.Option(help="llamacpp (local GGUF), openai (any compatible server) or simulated.")
]
Model = Annotated[
    str | None,
    typer.Option(help="GGUF path (llamacpp), model name (openai) or sentence-transformers folder (embedding)."),
]
Kappa = Annotated[float, typer.Option(min=0.0, max=1.0, help="Target agreement of the simulated judge.")]
Samples = Annotated[
    int,
    typer.Option(
        min=1,
        help=(
            "Answers per pair (self-consistency): the label is their majority, their spread is kept. "
            "The llamacpp backend reads its label distribution instead of sampling."
        ),
    ),
]
Temperature = Annotated[
    float | None, typer.Option(min=0.0, help="Temperature of the sampled answers (--samples K > 1; default 0.7).")
]
BaseUrl = Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1.")]
ApiKeyEnv = Annotated[str, typer.Option(help="Environment variable holding the API key.")]
PriceInput = Annotated[float | None, typer.Option(min=0.0, help="Price per million input tokens (openai).")]
PriceOutput = Annotated[float | None, typer.Option(min=0.0, help="Price per million output tokens (openai).")]
Constrain = Annotated[
    ConstrainMode,
    typer.Option(help="Constrain answers to the labels (openai): auto asks the server what it supports."),
]
Answers = Annotated[
    bool,
    typer.Option(
        "--answers",
        help="Judge the generated answers with the Gen-IR comparison's methods (binary, umbrela, subtopic, "
        "pairwise, embedding): the prompts adapted to a response.",
    ),
]
Exemplars = Annotated[
    ExemplarChoice | None,
    typer.Option(
        help="--answers pairwise: each answer against one Best passage of --ref drawn per topic (default), "
        "every one (all), or none (a tournament between the answers)."
    ),
]
Tournament = Annotated[
    bool, typer.Option("--tournament", help="--answers pairwise: answers against each other (--exemplars none).")
]
PositionBias = Annotated[
    float,
    typer.Option(min=0.0, max=1.0, help="The simulated judge picks the passage shown first this often."),
]
Stale = Annotated[
    bool,
    typer.Option("--stale", help="Grade only the cells a bank edit made stale (the newest judge run as it was)."),
]


# One piece over 60 lines: its thirty options are typer's signature, and mapping them onto
# `JudgeConfig` one typed field at a time is what keeps an absent option None (ctx.params says ()).
@commands.command()
@handles_errors
def judge(
    ctx: typer.Context,
    method: Annotated[JudgeMethod, typer.Option(help="How the judge labels a pair.")] = JudgeMethod.umbrela,
    backend: Backend = BackendName.llamacpp,
    name: Annotated[str | None, typer.Option(help="Label set to write (created when new; re-running resumes).")] = None,
    pool: Annotated[str, typer.Option(parser=pool_value, help=POOL_HELP)] = "qrels:human",
    model: Model = None,
    prompt: Annotated[str | None, typer.Option(help="A custom prompt file or template folder.")] = None,
    topics: TopicOption = None,
    limit: Annotated[int | None, typer.Option(min=1, help="At most this many pairs.")] = None,
    ref: RefOption = "human",
    bank: Annotated[str | None, typer.Option(help="Test bank the rubric methods grade with.")] = None,
    kappa: Kappa = 0.6,
    seed: SeedOption = 0,
    samples: Samples = 1,
    temperature: Temperature = None,
    threads: Annotated[int | None, typer.Option(min=1, help="CPU threads for llama.cpp.")] = None,
    base_url: BaseUrl = None,
    api_key_env: ApiKeyEnv = OPENAI_API_KEY,
    concurrency: Annotated[int, typer.Option(min=1, help="Requests in flight (openai).")] = 4,
    timeout: Annotated[float, typer.Option(min=0.0, help="Seconds per request (openai).")] = 60.0,
    retries: Annotated[int, typer.Option(min=0, help="Retries of a transient failure (openai).")] = 5,
    price_input: PriceInput = None,
    price_output: PriceOutput = None,
    constrain: Constrain = ConstrainMode.auto,
    stale: Stale = False,
    answers: Answers = False,
    exemplars: Exemplars = None,
    tournament: Tournament = False,
    position_bias: PositionBias = 0.0,
    failures: Annotated[bool, typer.Option("--failures", hidden=True)] = False,  # studio judges failures
    extract_answers: Annotated[bool, typer.Option("--extract-answers", hidden=True)] = False,  # … extract-answers
    verify: Annotated[bool, typer.Option("--verify", hidden=True)] = False,  # studio judges verify
    reparse: Annotated[bool, typer.Option("--reparse", hidden=True)] = False,  # studio judges reparse
    export_batch: Annotated[Path | None, typer.Option(hidden=True)] = None,  # studio judges export-batch
    import_batch: Annotated[Path | None, typer.Option(hidden=True)] = None,  # studio judges import-batch
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Label a pool of pairs with an LLM judge; every call is cached in the project file.

    --ref is the reference label set the holes pool, the simulated judge and the embedding exemplars
    come from. `studio judges` lists the runs, shows their failures, parses them again and moves their calls
    through OpenAI Batch files."""
    label_set = name or f"{'answers-' if answers else ''}{method.value}-{backend.value}"
    with open_project(ctx) as project:
        if _older_inspection(
            project, label_set, fmt, failures=failures, extract_answers=extract_answers, verify=verify, reparse=reparse
        ):
            return
        config = JudgeConfig(
            method=method.value,
            backend=backend.value,
            name=label_set,
            pool=pool,
            model=model,
            prompt=prompt,
            topics=topics,
            limit=limit,
            ref=ref,
            kappa=kappa,
            seed=seed,
            threads=threads,
            base_url=base_url,
            api_key_env=api_key_env,
            concurrency=concurrency,
            timeout=timeout,
            retries=retries,
            price_input=price_input,
            price_output=price_output,
            bank=bank,
            constrain=constrain.value,
            samples=samples,
            temperature=temperature,
            answers=answers,
            exemplars=_exemplars(answers, exemplars, tournament),
            position_bias=position_bias,
        )
        if stale:
            config = project.judge_config(label_set)
        if export_batch or import_batch:
            _older_batch(project, config, export_batch, import_batch, fmt)
            return
        if method is JudgeMethod.embedding and samples > 1:
            raise UsageError("--samples works with the LLM methods, not with embedding similarity")
        summary = _run_with_progress(project, config, stale_only=stale)
    _report(summary, label_set, fmt)


def _exemplars(answers: bool, exemplars: ExemplarChoice | None, tournament: bool) -> str | None:
    """What `--exemplars` and `--tournament` ask of an answers judge."""
    if (exemplars is not None or tournament) and not answers:
        raise UsageError("--exemplars and --tournament go with --answers")
    if tournament and exemplars not in (None, ExemplarChoice.none):
        raise UsageError("--tournament compares answers with each other, not with --exemplars")
    return ExemplarChoice.none.value if tournament else exemplars.value if exemplars is not None else None


def _report(summary: JudgeSummary, label_set: str, fmt: OutputFormat) -> None:
    """The run's summary on stdout; a run whose every call failed then ends with CallsFailed."""
    emit_object(summary.as_dict(), fmt, title=f"Judged into {label_set}")
    if summary.every_call_failed:  # the summary is data all the same; the status says it failed
        raise CallsFailed(
            f"{summary.failed_calls_text()}; recorded as failures (`studio judges failures {label_set}`),"
            " they are asked again by the next run"
        )


def _older_inspection(
    project: Project,
    label_set: str,
    fmt: OutputFormat,
    *,
    failures: bool,
    extract_answers: bool,
    verify: bool,
    reparse: bool,
) -> bool:
    """The hidden flags that inspect a run instead of judging (`studio judges …` today), in the
    order they were checked before; whether one of them did the work."""
    actions = (
        (failures, judges.show_failures),
        (extract_answers, judges.show_extracted_answers),
        (verify, judges.show_verification),
        (reparse, judges.show_reparse),
    )
    action = next((show for wanted, show in actions if wanted), None)
    if action is not None:
        action(project, label_set, fmt)
    return action is not None


def _older_batch(
    project: Project, config: JudgeConfig, export_to: Path | None, import_from: Path | None, fmt: OutputFormat
) -> None:
    """`--export-batch` / `--import-batch` (`studio judges export-batch | import-batch` today)."""
    if export_to and import_from:
        raise UsageError("give --export-batch or --import-batch, not both")
    if export_to:
        judges.write_batch(project, config, export_to, fmt)
    elif import_from:
        judges.read_batch(project, config, import_from, fmt)


def _run_with_progress(project: Project, config: JudgeConfig, *, stale_only: bool = False) -> JudgeSummary:
    summary = progress_bar(project.judge(config, stale_only=stale_only), f"{config.method} → {config.name}")
    assert isinstance(summary, JudgeSummary)
    if not stderr_console().is_terminal:
        stderr_console().print(
            f"judged {summary.pairs} pairs: {summary.calls} calls, {summary.cache_hits} cached, "
            f"{summary.failures} failures in {summary.seconds:.1f} s"
        )
    return summary


@commands.command()
@handles_errors
def derive(
    ctx: typer.Context,
    source: Annotated[str, typer.Option("--from", help="Label set of a rubric judge (exam-question/exam-nugget).")],
    bank: Annotated[str, typer.Option(help="The bank its items come from.")],
    score: Annotated[
        DerivedScore, typer.Option(help="How a document's item grades become its grade.")
    ] = DerivedScore.exam_binary,
    name: Annotated[str | None, typer.Option(help="Label set to write (default: SCORE-of-SOURCE).")] = None,
    min_grade: Annotated[
        float, typer.Option(parser=grade, help="An item counts as answered/covered at grade ≥ this.")
    ] = 4.0,
    replace: Annotated[bool, typer.Option("--replace", help="Recompute an existing derived set.")] = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """A derived label set from item grades: Exam-Binary, Exam-Graded max/mean, Rubric-Qrels."""
    label_set = name or f"{score.value}-of-{source}"
    with open_project(ctx) as project:
        result = project.derive(source, bank, score.value, label_set, min_grade=min_grade, replace=replace)
    emit_object(result, fmt, title=f"Derived {label_set}")
