"""Prompt collections and the prompt-sensitivity study over them (of a collection, or of templates)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from studio.domain.choices import OnDuplicate, OutOfScale, VarianceKind
from studio.domain.errors import UsageError
from studio.domain.models import LabelSetKind
from studio.domain.names import check_name
from studio.services.facade.imports import ImportsMixin
from studio.services.facade.lazy import lazy_function, lazy_module

if TYPE_CHECKING:
    from collections.abc import Generator, Iterator, Sequence

    from studio.domain.export_report import ExportReport
    from studio.domain.import_report import ImportReport
    from studio.domain.judging import JudgeConfig, JudgeProgress
    from studio.domain.prompt_study import StudyOptions, StudyPlan, StudyPrompt, StudyReport, StudyRunSummary, Variance
    from studio.judges.backend import Backend
    from studio.services.facade.base import PathLike
    from studio.services.imports.trec import default_name as trec_default_name
    from studio.services.judging.backends import make_backend
    from studio.services.sensitivity import judgment_files, prompt_collections, study, study_folder, templates
    from studio.services.sensitivity import run as study_run
    from studio.services.sensitivity.run import BackendFor
    from studio.store.new_names import refuse_look_alike
else:
    StudyOptions = lazy_function("studio.domain.prompt_study", "StudyOptions")
    make_backend = lazy_function("studio.services.judging.backends", "make_backend")
    prompt_collections = lazy_module("studio.services.sensitivity.prompt_collections")
    judgment_files = lazy_module("studio.services.sensitivity.judgment_files")
    study_folder = lazy_module("studio.services.sensitivity.study_folder")
    study = lazy_module("studio.services.sensitivity.study")
    templates = lazy_module("studio.services.sensitivity.templates")
    study_run = lazy_module("studio.services.sensitivity.run")
    refuse_look_alike = lazy_function("studio.store.new_names", "refuse_look_alike")
    trec_default_name = lazy_function("studio.services.imports.trec", "default_name")


class PromptStudyMixin(ImportsMixin):
    """Prompt collections as data, label sets linked to their prompts, and the study's report."""

    def import_prompts(
        self, path: PathLike, *, name: str | None = None, groups: PathLike | None = None, replace: bool = False
    ) -> ImportReport:
        """A `prompts.json` (or a folder of template folders) as a prompt collection; `groups` a JSON
        mapping {participant or prompt id: group} over the name rule (human-*: people, LLM-*: llm)."""
        return prompt_collections.import_prompts(
            self.db, Path(path), name=name, groups_file=Path(groups) if groups else None, replace=replace
        )

    def export_prompts(self, collection: str, out: str | Path, *, folder: bool = False) -> ExportReport:
        """A collection as `prompts.json`, or (`folder`) one template folder per prompt and method."""
        return prompt_collections.export_prompts(self.db, collection, out, folder=folder)

    def collection_prompts(self, collection: str) -> list[StudyPrompt]:
        return prompt_collections.collection_prompts(self.db, collection)

    def link_qrels(
        self, label_set: str, *, prompt: str, model: str, collection: str, method: str | None = None
    ) -> None:
        """Link a label set to the prompt, judge model and test collection that made it."""
        grades = [g for t in self.engine.evaluator(label_set).labels.values() for g in t.judged.values()]
        chosen = method or prompt_collections.pointwise_method(self.db, prompt, grades)
        prompt_collections.link_label_set(self.db, label_set, prompt, model, collection, chosen)

    def import_linked_qrels(
        self,
        files: PathLike | Sequence[PathLike],
        *,
        name: str | None,
        prompt: str,
        model: str,
        collection: str,
        method: str | None = None,
        kind: LabelSetKind | str | None = None,
        on_duplicate: OnDuplicate | str = OnDuplicate.ERROR,
        out_of_scale: OutOfScale | str = OutOfScale.ERROR,
        replace: bool = False,
    ) -> ImportReport:
        """Qrels a judge made with `prompt` (an LLM label set unless `kind` says otherwise), linked to
        the prompt, the model and the test collection, in one transaction. `method` (needed when the
        prompt has both pointwise methods) sets the scale: a grade off it is refused with its line
        (`out_of_scale` skip: left out, warned); `on_duplicate` resolves a pair graded twice."""
        paths = [Path(f) for f in ([files] if isinstance(files, (str, Path)) else files)]
        if name is not None and len(paths) > 1:
            raise UsageError("--name names one file; give files one at a time to name each")
        found = [
            judgment_files.checked_file(path, name or trec_default_name(path), prompt, model, collection, method)
            for path in paths
        ]
        policy = judgment_files.JudgmentPolicy(
            on_duplicate=OnDuplicate(on_duplicate),
            out_of_scale=OutOfScale(out_of_scale),
            replace=replace,
            kind=LabelSetKind(kind or LabelSetKind.LLM),
        )
        if any(f.method == "pairwise" for f in found):
            raise UsageError("pairwise judgments are preferences: studio import preferences (or import study)")
        report = judgment_files.import_judgment_files(self.engine, found, policy)
        return self._followed(report, self.writes.written(report.names))

    def import_study(
        self,
        folder: PathLike,
        *,
        pattern: str,
        prompts: str | None = None,
        model: str | None = None,
        method: str | None = None,
        collection: str | None = None,
        prefix: str = "",
        ref: str = "human",
        on_duplicate: OnDuplicate | str = OnDuplicate.ERROR,
        out_of_scale: OutOfScale | str = OutOfScale.ERROR,
        replace: bool = False,
    ) -> ImportReport:
        """A folder of judgment files (binary, graded and pairwise) whose names give prompt, model,
        method and test collection by `pattern` (e.g. `{model}_{method}_{collection}_{prompt}.txt`),
        each into a label set `PREFIX` + `MODEL-METHOD-COLLECTION-PROMPT` linked to its prompt; in one
        transaction, or nothing."""
        spec = study_folder.StudyFolder(Path(folder), pattern, prompts, model, method, collection, prefix)
        policy = judgment_files.JudgmentPolicy(
            on_duplicate=OnDuplicate(on_duplicate), out_of_scale=OutOfScale(out_of_scale), ref=ref, replace=replace
        )
        report = study_folder.import_study_folder(self.engine, spec, policy)
        return self._followed(report, self.writes.written(report.names))

    def import_preferences(
        self,
        path: PathLike,
        *,
        name: str,
        prompt: str,
        model: str,
        collection: str,
        ref: str = "human",
        on_duplicate: OnDuplicate | str = OnDuplicate.ERROR,
        replace: bool = False,
    ) -> ImportReport:
        """Pairwise verdicts (`qid category docA docB agree|disagree|tie`) or raw answers per order
        (`qid docFirst docSecond 1|2`, or the study release's `qid high low regular|swapped docFirst
        docSecond A|B`, oriented by `ref`) into a label set linked to its prompt."""
        found = judgment_files.checked_file(Path(path), name, prompt, model, collection, "pairwise")
        policy = judgment_files.JudgmentPolicy(on_duplicate=OnDuplicate(on_duplicate), ref=ref, replace=replace)
        report = judgment_files.import_judgment_files(self.engine, [found], policy)
        report.what = "preferences"
        return self._followed(report, self.writes.written(report.names))

    def study_report(
        self,
        ref: str,
        *,
        ref_relevant: float = 2.0,
        relevant: float = 1.0,
        variance: VarianceKind | str = "sample",
        binarise_ref: float | None = None,
        pool_collections: bool = False,
        collection: str | None = None,
        references: Sequence[str] = (),
        measure: str = "nDCG@10",
    ) -> StudyReport:
        """Agreement per prompt, its mean and variance per model × group × method (Table 4.5, also as
        model × group rows by method columns), α between a group's prompts and the prompts' lexical
        diversity. `binarise_ref`: graded κ against the reference binarised at that level, the
        judge's grades as they are; `pool_collections`: a group's mean over every test collection."""
        options = StudyOptions(ref_relevant, relevant, binarise_ref, pool_collections, _variance(variance))
        return study.study_report(
            self.engine, ref, options=options, collection=collection, references=references, measure=measure
        )

    def prompt_sensitivity(
        self,
        config: JudgeConfig,
        prompts: list[str],
        *,
        ref_relevant: float = 2.0,
        variance: VarianceKind | str = "sample",
    ) -> Iterator[JudgeProgress | StudyRunSummary]:
        """A study of prompt templates: the pool judged with each (into `config.name`-<template>),
        each label set linked to its prompt in collection `config.name`, then the study's report."""
        config = replace(config, name=check_name(config.name, "label set"))
        refuse_look_alike(self.db.cursor(), "label set", config.name)
        return templates.template_study(
            self.engine, config, prompts, ref_relevant=ref_relevant, variance=_variance(variance)
        )

    def run_study(
        self,
        plan: StudyPlan,
        config: JudgeConfig,
        models: Sequence[str],
        *,
        backend_for: BackendFor | None = None,
        variance: VarianceKind | str = "sample",
        ref_relevant: float = 2.0,
    ) -> Generator[JudgeProgress | StudyRunSummary, None, None]:
        """Every prompt × model × method of the plan through the cached judge calls, then the report.
        The simulated judge draws its own noisy copy for each prompt (seed + the prompt's number)."""
        plan = replace(
            plan,
            prefix=check_name(plan.prefix, "study"),
            test_collection=check_name(plan.test_collection, "test collection"),
        )
        models = [check_name(model, "model") for model in models]
        config = replace(config, ref_relevant=ref_relevant)  # a simulated judge's relevant is the report's
        prompts = {(p.prompt_id, p.method): i for i, p in enumerate(self.collection_prompts(plan.collection))}

        loaded: dict[str, Backend] = {}  # one backend per model: a local model loads once

        def default_backend(prompt: StudyPrompt, model: str) -> Backend:
            chosen = replace(config, model=None if model == "-" else model)
            if config.backend == "simulated":
                return make_backend(
                    self.db, replace(chosen, seed=config.seed + prompts.get((prompt.prompt_id, prompt.method), 0))
                )
            if model not in loaded:
                loaded[model] = make_backend(self.db, chosen)
            return loaded[model]

        yield from study_run.run_study(
            self.engine,
            plan,
            models,
            backend_for or default_backend,
            variance=_variance(variance),
            ref_relevant=ref_relevant,
        )


def _variance(kind: VarianceKind | str) -> Variance:
    return "population" if VarianceKind(kind) is VarianceKind.population else "sample"
