"""LLM judges: running them, their failures, re-parsing, Batch files, extracted answers and probes."""

from __future__ import annotations

from dataclasses import replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from studio.domain.choices import BackendName, JudgeMethod
from studio.domain.names import check_name
from studio.services.facade.base import ProjectBase
from studio.services.facade.lazy import lazy_function, lazy_module

if TYPE_CHECKING:
    from collections.abc import Generator, Iterator, Mapping, Sequence
    from pathlib import Path

    from studio.domain.judge_results import (
        BatchImportCounts,
        ExtractedAnswers,
        ProbeRun,
        ReparseCounts,
        StuffingProbe,
        VerificationRow,
    )
    from studio.domain.judging import JudgeConfig, JudgeProgress, JudgeSummary
    from studio.domain.rows import FailureRow
    from studio.judges.backend import Backend
    from studio.services.judging.config import last_config
    from studio.services.judging.reparse import reparse
    from studio.services.judging.run import run_judge
    from studio.store import judging as judge_store
    from studio.store import labels as label_store
    from studio.store.new_names import refuse_look_alike
else:
    JudgeConfig = lazy_function("studio.domain.judging", "JudgeConfig")
    last_config = lazy_function("studio.services.judging.config", "last_config")
    reparse = lazy_function("studio.services.judging.reparse", "reparse")
    run_judge = lazy_function("studio.services.judging.run", "run_judge")
    judge_store = lazy_module("studio.store.judging")
    label_store = lazy_module("studio.store.labels")
    refuse_look_alike = lazy_function("studio.store.new_names", "refuse_look_alike")


class JudgesMixin(ProjectBase):
    """What judges do to the project."""

    def judge(
        self, config: JudgeConfig, *, stale_only: bool = False, backend: Backend | None = None
    ) -> Generator[JudgeProgress | JudgeSummary, None, None]:
        """Run a judge into `config.name`: progress as calls are answered, the summary last. Every
        call is cached; the derived sets made from the label set follow it at the end."""
        config = replace(config, name=check_name(config.name, "label set"))
        refuse_look_alike(self.db.cursor(), "label set", config.name)
        if config.answers:
            # Generated answers, with the Gen-IR comparison's methods (services/answers/judging.py).
            from studio.services.answers.judging import answer_config, judge_answers

            yield from judge_answers(self.db, answer_config(config), backend, self.writes)
            return
        if config.method == "embedding":
            # Imported when used: the embedding judge needs the optional sentence-transformers.
            from studio.services.judging.embeddings import embedding_judge

            summary = embedding_judge(self.db, config)
            self.writes.written([config.name])
            yield summary
            return
        yield from run_judge(self.db, config, backend, stale_only=stale_only, writes=self.writes)

    def reparse_judge(self, label_set: str) -> ReparseCounts:
        """Parse the newest judge run's stored outputs again with the current parser (no calls)."""
        counts = reparse(self.db, label_set)
        self.writes.written([label_set], item_grades=[label_set])
        return counts

    def judge_failures(self, label_set: str, limit: int = 50) -> list[FailureRow]:
        """The newest judge run's recorded failures, with the raw model output."""
        set_id = label_store.label_set_id(self.db.cursor(), label_set)
        if set_id is None:
            return []
        return judge_store.failures(self.db.cursor(), set_id, limit)

    def judge_config(self, label_set: str) -> JudgeConfig:
        """The configuration of the label set's newest judge run, to run it again as it was."""
        return last_config(self.db, label_set)

    def batch_config(self, label_set: str, **given: Any) -> JudgeConfig:
        """The judge an OpenAI Batch file is for: the label set's newest judge run as it was
        configured, or a new openai UMBRELA judge when none wrote it yet; the options given (not
        None) replace either's."""
        judged = any(run["label_set"] == label_set for run in self.judge_runs())
        base = (
            last_config(self.db, label_set)
            if judged
            else JudgeConfig(method=JudgeMethod.umbrela.value, backend=BackendName.openai.value, name=label_set)
        )
        # Each value keeps its option's type (str, int, list); mypy matches a `**` mapping's value type
        # against every field `replace` may set, which `object` fails. `replace` refuses unknown names.
        chosen: Mapping[str, Any] = {
            key: value.value if isinstance(value, StrEnum) else value
            for key, value in given.items()
            if value is not None
        }
        return replace(base, **chosen)

    def export_batch(self, config: JudgeConfig, out: Path) -> int:
        """The requests the call cache has no answer for, as an OpenAI Batch input file (no call);
        how many were written."""
        from studio.services.judging import batch  # what only Batch files need

        return batch.export_batch(self.db, config, out)

    def import_batch(self, config: JudgeConfig, file: Path) -> BatchImportCounts:
        """The answers of an OpenAI Batch output file, into the call cache (one transaction)."""
        from studio.services.judging import batch

        return batch.import_batch(self.db, config, file)

    def extract_answers(self, label_set: str) -> Iterator[JudgeProgress | ExtractedAnswers]:
        """Each document's answer to each item of a rubric judge's bank (calls cached)."""
        # Imported when used: only the rubric commands load the extraction prompts.
        from studio.services.rubric import verification

        return verification.extract_answers(self.db, label_set)

    def verification(self, label_set: str) -> list[VerificationRow]:
        """Per item, the documents by grade with the answers extracted from them."""
        from studio.services.rubric import verification

        return verification.verification(self.db, label_set)

    def probe(
        self, label_set: str, *, ref: str = "human", limit: int = 40, seed: int = 0
    ) -> Iterator[JudgeProgress | ProbeRun]:
        """How far the judge of `label_set` moves when reference-non-relevant passages are stuffed
        with the query and a claim of relevance (Alaofi et al. 2024)."""
        from studio.services.sensitivity.probes import run_probe

        return run_probe(self.engine, label_set, ref=ref, limit=limit, seed=seed)

    def probe_stuffing(
        self,
        label_set: str,
        *,
        ref: str = "human",
        limit: int = 40,
        seed: int = 0,
        kinds: Sequence[str] = ("query", "claim", "both"),
        positions: Sequence[str] = ("start", "middle", "end"),
        measure: str = "nDCG@10",
        backend: Backend | None = None,
    ) -> Iterator[JudgeProgress | StuffingProbe]:
        """Each stuffing on its own (query words, claim, both; at the start, middle, end): per
        perturbation the judge's flip rate with a 95% Wilson interval, and (pointwise) the runs
        that rise when the flipped passages count as relevant."""
        from studio.services.sensitivity.stuffing import probe_stuffing

        return probe_stuffing(
            self.engine,
            label_set,
            ref=ref,
            limit=limit,
            seed=seed,
            kinds=kinds,
            positions=positions,
            measure=measure,
            backend=backend,
        )
