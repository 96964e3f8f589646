"""A prompt-sensitivity study of prompt templates (`studio sensitivity --prompt A --prompt B …`): the
same study as a prompt collection's (`studio sensitivity run`), its prompts the templates named.

The templates (the studio's own by name, or paths; a folder stands for the templates inside it)
become a prompt collection named like the label sets' prefix, one prompt each, in one author group
(`templates`). Each is judged over the pool with the judge run of `studio judge` (every call
cached, a killed run resumed, an unparseable answer kept as a failure with its raw text) into its
own label set, `PREFIX-<template>`, linked to its prompt, the judge's model and the test collection
`-`. The report is the study's (`studio.services.sensitivity.study`): each prompt's agreement with
the reference, its mean and variance over the prompts, and Krippendorff's α between them;
`studio sensitivity report --prompts PREFIX` prints it again.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from studio.domain.errors import UsageError
from studio.domain.judging import JudgeConfig, JudgeProgress, JudgeSummary
from studio.domain.prompt_study import StudyOptions, StudyPrompt, StudyRunSummary, Variance
from studio.judges.backend import Backend
from studio.judges.methods import get_method
from studio.judges.prompts import load_prompt
from studio.services.evaluation.engine import EvaluationEngine
from studio.services.judging.backends import make_backend
from studio.services.judging.run import run_judge
from studio.services.sensitivity.study import study_report
from studio.store import Database, new_batch
from studio.store import labels as label_store
from studio.store import prompt_collections as prompt_store

GROUP = "templates"  # the author group of every template: α is taken between all of them
TEST_COLLECTION = "-"  # the templates judge the project's own pool, not a named test collection


def expand_prompts(prompts: list[str]) -> list[str]:
    """Template names or paths; a folder that is not itself a template stands for the templates
    (sub-folders with user.txt, or .txt files) inside it, in name order."""
    found: list[str] = []
    for prompt in prompts:
        path = Path(prompt)
        if path.is_dir() and not (path / "user.txt").is_file():
            inside = sorted(p for p in path.iterdir() if (p / "user.txt").is_file() or p.suffix == ".txt")
            if not inside:
                raise UsageError(f"{prompt}: no prompt templates inside (folders with user.txt, or .txt files)")
            found.extend(str(p) for p in inside)
        else:
            found.append(prompt)
    if len(found) < 2:
        raise UsageError("prompt sensitivity needs at least two prompts")
    return found


def prompt_id(prompt: str) -> str:
    """The template's name, or the file's stem, made safe for a label set name."""
    path = Path(prompt)
    stem = path.stem if path.exists() else prompt.split("/")[0]
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", stem).strip("-")


def label_set_name(prefix: str, prompt: str) -> str:
    """`prefix-<prompt>`: the label set a template's labels go into."""
    return f"{prefix}-{prompt_id(prompt)}"


def study_method(method: str) -> str:
    """The study's name of a judging method: binary answers are binary, grades graded."""
    return "binary" if method == "binary" else "graded"


def template_prompts(method: str, prompts: Sequence[str]) -> list[StudyPrompt]:
    """The templates as a collection's prompts (each checked against the method before any call)."""
    found = []
    for prompt in prompts:
        get_method(method, prompt)
        template = load_prompt(prompt)
        ident = prompt_id(prompt)
        found.append(StudyPrompt(ident, ident, GROUP, study_method(method), template.system or "", template.user))
    return found


def keep_collection(db: Database, name: str, prompts: list[StudyPrompt], source: str) -> None:
    """The templates as prompt collection `name`: made, or found as it is; another collection of that
    name is refused."""
    con = db.cursor()
    if name in prompt_store.collection_names(con):
        if prompt_store.collection_prompts(con, name) == prompts:
            return
        raise UsageError(f"prompt collection {name!r} holds other prompts: give the label sets another prefix (--name)")
    with db.transaction() as tx:
        prompt_store.replace_collection(tx, name, prompts, new_batch(tx, "sensitivity", source))


def template_study(
    engine: EvaluationEngine,
    config: JudgeConfig,
    prompts: list[str],
    *,
    backend: Backend | None = None,
    ref_relevant: float = 2.0,
    variance: Variance = "sample",
) -> Iterator[JudgeProgress | StudyRunSummary]:
    """Judge the pool once per template (into `config.name`-<template>), link each label set to its
    prompt, then the study's report over them."""
    db = engine.db
    chosen = expand_prompts(prompts)
    names = [label_set_name(config.name, p) for p in chosen]
    if len(set(names)) != len(names):
        raise UsageError("two prompts would write the same label set; give them different names")
    study_prompts = template_prompts(config.method, chosen)  # a bad template is refused before any call
    keep_collection(db, config.name, study_prompts, " ".join(chosen))
    backend = backend or make_backend(db, config)
    summaries: list[JudgeSummary] = []
    for prompt, name, linked in zip(chosen, names, study_prompts, strict=True):
        for event in run_judge(db, replace(config, prompt=prompt, name=name), backend=backend):
            if isinstance(event, JudgeSummary):
                summaries.append(event)
            else:
                yield event
        _link(db, name, config.name, linked, backend.model)
        engine.forget_labels(name)
    backend.close()
    options = StudyOptions(ref_relevant=ref_relevant, variance=variance)
    report = study_report(engine, config.ref, options=options, collection=config.name, measure="nDCG@10")
    yield StudyRunSummary(
        label_sets=names,
        calls=sum(s.calls for s in summaries),
        cache_hits=sum(s.cache_hits for s in summaries),
        failures=sum(s.failures for s in summaries),
        report=report,
    )


def _link(db: Database, label_set: str, collection: str, prompt: StudyPrompt, model: str) -> None:
    set_id = label_store.label_set_id(db.cursor(), label_set)
    assert set_id is not None  # the judge run made it
    with db.transaction() as tx:
        prompt_store.link_label_set(tx, set_id, collection, prompt.prompt_id, prompt.method, model, TEST_COLLECTION)
