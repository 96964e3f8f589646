"""`studio import topics|docs|qrels|run|responses|answer-labels|bank|prompts|preferences FILE…`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.options import FormatOption, RefOption
from studio.cli.output import OutputFormat
from studio.cli.study_import import OnDuplicateAnswer, OutOfScaleOption, import_study
from studio.cli.study_import import report_import as _report
from studio.domain.choices import (
    AnswerVerdictLayout,
    ItemKind,
    LeaderboardLayout,
    OnDuplicate,
    OnDuplicateGrade,
    OutOfScale,
    StudyMethodChoice,
)
from studio.domain.errors import UsageError
from studio.domain.models import LabelSetKind

commands = typer.Typer(
    name="import", help="Load data into the project (each command all or nothing).", no_args_is_help=True
)

Files = Annotated[list[Path], typer.Argument(help="Files to load (.gz accepted).", show_default=False)]
Replace = Annotated[bool, typer.Option("--replace", help="Replace what is loaded under the same name.")]
ReplaceTexts = Annotated[
    bool, typer.Option("--replace", help="Replace the text of an id the project holds with another (else refused).")
]


@commands.command("topics")
@handles_errors
def import_topics(
    ctx: typer.Context, files: Files, replace: ReplaceTexts = False, fmt: FormatOption = OutputFormat.table
) -> None:
    """Topics: `qid<TAB>text` lines or JSONL (qid|query_id|id, text|query|title)."""
    with open_project(ctx, create=True) as project:
        _report(project.import_topics(files, replace=replace), fmt)


@commands.command("docs")
@handles_errors
def import_docs(
    ctx: typer.Context,
    files: Files,
    on_duplicate: Annotated[
        OnDuplicate,
        typer.Option(help="A docid listed again with another text: error, or keep the first/last."),
    ] = OnDuplicate.ERROR,
    replace: ReplaceTexts = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Documents: `docid<TAB>text` lines or JSONL (docid|id|pid, text|contents|segment, title).

    A docid listed again with the same text (a passage file with one line per judging topic)
    is loaded once and counted as repeated."""
    with open_project(ctx, create=True) as project:
        _report(project.import_docs(files, on_duplicate=on_duplicate, replace=replace), fmt)


@commands.command("qrels")
@handles_errors
def import_qrels(
    ctx: typer.Context,
    files: Files,
    name: Annotated[str | None, typer.Option(help="Label set name (default: the file name).")] = None,
    kind: Annotated[
        LabelSetKind | None,
        typer.Option(help="Who made the labels (default: human; a replaced set keeps its kind).", show_default=False),
    ] = None,
    on_duplicate: Annotated[
        OnDuplicateGrade,
        typer.Option(
            help="A pair graded twice differently: error (as trec_eval), or keep the first, last or highest grade"
            " (highest: as Clarke's compatibility.py reads qrels)."
        ),
    ] = OnDuplicateGrade.ERROR,
    prompt: Annotated[
        str | None,
        typer.Option(help="The prompt (ID or COLLECTION/ID of an imported prompt collection) that made the labels."),
    ] = None,
    model: Annotated[str | None, typer.Option(help="With --prompt: the judge model behind the labels.")] = None,
    collection: Annotated[str | None, typer.Option(help="With --prompt: the test collection (e.g. dl20).")] = None,
    method: Annotated[
        StudyMethodChoice | None, typer.Option(help="With --prompt: its method, binary or graded (needed when both).")
    ] = None,
    out_of_scale: OutOfScaleOption = OutOfScale.ERROR,
    replace: Replace = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """TREC qrels `qid iter docid grade` (grades may be fractional); one label set per file, or
    several files into the one label set `--name` names (a pair graded differently in two files is
    refused, or resolved by --on-duplicate).

    With `--prompt`, `--model` and `--collection` the label set is an LLM's, linked to the prompt
    that made it (for `studio sensitivity report`); its grades must lie on the method's scale."""
    linked = [prompt, model, collection]
    if any(v is not None for v in linked) and not all(v is not None for v in linked):
        raise UsageError("--prompt, --model and --collection go together")
    if prompt is None and (method is not None or out_of_scale is not OutOfScale.ERROR):
        raise UsageError("--method and --out-of-scale go with --prompt")
    if on_duplicate is OnDuplicateGrade.HIGHEST and prompt is not None:
        raise UsageError("--on-duplicate highest is for reference qrels; a judge's file keeps the first or last")
    with open_project(ctx, create=True) as project:
        if prompt is not None and model is not None and collection is not None:
            report = project.import_linked_qrels(
                files,
                name=name,
                prompt=prompt,
                model=model,
                collection=collection,
                method=None if method is None else method.value,
                kind=kind,
                on_duplicate=on_duplicate.value,
                out_of_scale=out_of_scale,
                replace=replace,
            )
        else:
            report = project.import_qrels(files, name=name, kind=kind, on_duplicate=on_duplicate, replace=replace)
        _report(report, fmt)


@commands.command("prompts")
@handles_errors
def import_prompts(
    ctx: typer.Context,
    file: Annotated[
        Path, typer.Argument(help="prompts.json, or a folder of prompt template folders.", show_default=False)
    ],
    name: Annotated[str | None, typer.Option(help="Collection name (default: the file name).")] = None,
    groups: Annotated[
        Path | None,
        typer.Option(help="JSON {participant or prompt id: group}, over the rule human-*: people, LLM-*: llm."),
    ] = None,
    replace: Replace = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """A prompt collection `{id: {participant_name, binary|graded|pairwise: {system, user}}}`.

    A prompt's author group is `people` for `human-*` authors, `llm` for `LLM-*`, else the author's
    name (or what `--groups` maps it to). Placeholders are checked against the method: `{query}`
    and `{passage}`, or `{query}`, `{passage_a}` and `{passage_b}` for pairwise."""
    with open_project(ctx, create=True) as project:
        _report(project.import_prompts(file, name=name, groups=groups, replace=replace), fmt)


@commands.command("preferences")
@handles_errors
def import_preferences(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="Verdict or raw preference file (.gz accepted).", show_default=False)],
    name: Annotated[str, typer.Option(help="Label set to create.", show_default=False)],
    prompt: Annotated[str, typer.Option(help="The prompt (ID or COLLECTION/ID).", show_default=False)],
    model: Annotated[str, typer.Option(help="The judge model.", show_default=False)],
    collection: Annotated[str, typer.Option(help="The test collection judged.", show_default=False)],
    ref: RefOption = "human",
    on_duplicate: OnDuplicateAnswer = OnDuplicate.ERROR,
    replace: Replace = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Pairwise verdicts `qid category docA docB agree|disagree|tie` (docA the better passage), or raw
    answers per order — `qid docFirst docSecond 1|2`, or the study release's `qid high low
    regular|swapped docFirst docSecond A|B` — (--ref orders their passages), into a label set
    linked to its prompt."""
    with open_project(ctx, create=True) as project:
        report = project.import_preferences(
            file,
            name=name,
            prompt=prompt,
            model=model,
            collection=collection,
            ref=ref,
            on_duplicate=on_duplicate,
            replace=replace,
        )
        _report(report, fmt)


commands.command("study")(import_study)


@commands.command("run")
@handles_errors
def import_run(
    ctx: typer.Context,
    files: Files,
    name: Annotated[
        str | None,
        typer.Option(
            help="Run name (default: the tag column). Given, every row of the file is that run, whatever its tag."
        ),
    ] = None,
    replace: Replace = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """TREC runs `qid Q0 docid rank score tag`; many files at once.

    A file is one run, named after its tag column: a line with another tag than the first row's
    is refused (naming the line) unless `--name` names the run."""
    with open_project(ctx, create=True) as project:
        _report(project.import_runs(files, name=name, replace=replace), fmt)


@commands.command("responses")
@handles_errors
def import_responses(
    ctx: typer.Context,
    files: Files,
    system: Annotated[
        str | None, typer.Option(help="System name, overriding the file's (a qid<TAB>text file needs it).")
    ] = None,
    replace: Replace = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Generated answers: JSONL {qid, system, text}, the TREC RAG 2024/2025 answer formats, or one
    system's qid<TAB>text (with --system)."""
    with open_project(ctx, create=True) as project:
        _report(project.import_responses(files, system=system, replace=replace), fmt)


@commands.command("answer-labels")
@handles_errors
def import_answer_labels(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="One system's verdict file (.gz accepted).", show_default=False)],
    system: Annotated[str, typer.Option(help="The system whose answers the verdicts judge.")],
    method: Annotated[AnswerVerdictLayout, typer.Option(help="The verdicts' layout.")],
    name: Annotated[str, typer.Option(help="Label set to add the verdicts to (created when new).")],
    model: Annotated[str | None, typer.Option(help="The judge that gave the verdicts (default: imported).")] = None,
    scale: Annotated[int, typer.Option(min=1, help="Highest grade of graded verdicts.")] = 3,
    replace: Annotated[bool, typer.Option("--replace", help="Replace the system's verdicts the set holds.")] = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Verdicts on one system's answers as the Gen-IR comparison's release keeps them: binary `qid 0
    yes|no`, graded `qid 0 G`, subtopics `qid 0 yes|no 1 yes|no …`, preferences `qid reg|rev qrel|gen
    DOC gen|qrel DOC a|b` (two lines a topic). One import per system file."""
    with open_project(ctx, create=True) as project:
        report = project.import_answer_labels(
            file, system=system, method=method.value, name=name, model=model, scale=scale, replace=replace
        )
        _report(report, fmt)


@commands.command("bank")
@handles_errors
def import_bank(
    ctx: typer.Context,
    files: Files,
    name: Annotated[str | None, typer.Option(help="Bank name (default: the first file's name).")] = None,
    kind: Annotated[ItemKind | None, typer.Option(help="What the items of a TSV file are (default nugget).")] = None,
    replace: Replace = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Test banks: Rubric-workbench JSONL(.gz) (`items`, or the older `questions`), nuggetizer JSONL or TSV
    qid_n<TAB>text[<TAB>vital|okay]. Query texts of topics the project lacks become their topics."""
    item_kind = None if kind is None else kind.value
    with open_project(ctx, create=True) as project:
        _report(project.import_bank(files, name=name, kind=item_kind, replace=replace), fmt)


@commands.command("judgments")
@handles_errors
def import_judgments(
    ctx: typer.Context,
    files: Files,
    name: Annotated[str | None, typer.Option(help="Label set name (default: the file name).")] = None,
    replace: Replace = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """UMBRELA-style judgment JSONL {qid, docid, judgment, result_status, …} into an LLM label set."""
    with open_project(ctx, create=True) as project:
        _report(project.import_judgments(files, name=name, replace=replace), fmt)


@commands.command("graded")
@handles_errors
def import_graded(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="Graded file (.gz accepted).", show_default=False)],
    name: Annotated[str, typer.Option(help="Label set to create.", show_default=False)],
    bank: Annotated[
        str, typer.Option(help="The bank the grades refer to (nuggetizer files may create it).", show_default=False)
    ],
    llm: Annotated[str | None, typer.Option(help="The grader to take from a file holding several.")] = None,
    replace: Replace = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Item grades: a Rubric-workbench graded file or nuggetizer assignment JSONL."""
    with open_project(ctx, create=True) as project:
        _report(project.import_graded(file, name=name, bank=bank, llm=llm, replace=replace), fmt)


@commands.command("irds")
@handles_errors
def import_irds(
    ctx: typer.Context,
    dataset_id: Annotated[
        str, typer.Argument(help="An ir_datasets id, e.g. msmarco-passage/trec-dl-2019/judged.", show_default=False)
    ],
    name: Annotated[str | None, typer.Option(help="Label set name (default: the id, / as _).")] = None,
    all_docs: Annotated[
        bool, typer.Option("--all-docs", help="Every document of the collection, not only those the project needs.")
    ] = False,
    replace: Replace = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Topics, qrels and documents of an ir_datasets dataset, from its local cache (needs the [irds] extra).

    The documents are those the qrels judge, the runs rank and the label sets label. Nothing is
    downloaded: data missing from the cache is refused, naming what to fetch."""
    with open_project(ctx, create=True) as project:
        _report(project.import_irds(dataset_id, name=name, all_docs=all_docs, replace=replace), fmt)


@commands.command("leaderboard")
@handles_errors
def import_leaderboard(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="Leaderboard file (.gz accepted).", show_default=False)],
    name: Annotated[str | None, typer.Option(help="Name to correlate against (default: the file name).")] = None,
    layout: Annotated[
        LeaderboardLayout | None,
        typer.Option("--as", help="Layout (default: told by the content; latex is written only).", show_default=False),
    ] = None,
    run: Annotated[
        str | None, typer.Option(help="Run of a file that names none (one tool output; default: the file name).")
    ] = None,
    replace: Replace = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """A leaderboard another tool wrote (trec_eval -q, ir_measures, tot, JSONL, or studio's JSON/TSV/CSV),
    to correlate against: `studio correlate --ref leaderboard:NAME --qrels Q`."""
    with open_project(ctx, create=True) as project:
        _report(project.import_leaderboard(file, name=name, layout=layout, run=run, replace=replace), fmt)


@commands.command("probs")
@handles_errors
def import_probs(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="CSV of label probabilities (.gz accepted).", show_default=False)],
    name: Annotated[str | None, typer.Option(help="Label set name (default: the file name).")] = None,
    replace: Replace = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """LLM label probabilities, CSV topic_id,doc_id,prob_0…prob_k (or prob_yes,prob_no), into an LLM label set.

    A pair's label is its most probable grade (the lowest of equally probable ones); the
    distributions serve calibration, ensembles and audits as a judge's do."""
    with open_project(ctx, create=True) as project:
        _report(project.import_probs(file, name=name, replace=replace), fmt)
