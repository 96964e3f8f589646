"""`Project`: the studio's Python API over one project file."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from studio.domain.models import LabelSetKind
from studio.formats.trec import OnDuplicate, OnDuplicateGrade
from studio.judges.backend import Backend
from studio.services.audit import estimates as audit_estimates
from studio.services.audit import gold as audit_gold
from studio.services.audit import planner as audit_planner
from studio.services.audit import samples as audit_samples
from studio.services.audit import simulation as audit_simulation
from studio.services.calibration.calibrate import calibrated_sets
from studio.services.derived.follow import Followed
from studio.services.derived.make import make_bank_score, make_calibration, make_ensemble
from studio.services.ensembles.scores import ensemble_scores
from studio.services.evaluation.answers import system_leaderboard
from studio.services.evaluation.changes import ChangeWatcher
from studio.services.evaluation.engine import DEFAULT_MEASURES, EvaluationEngine
from studio.services.imports import catalog as import_catalog
from studio.services.imports import trec as import_trec
from studio.services.imports.report import ImportReport
from studio.services.integrity.check import check_project
from studio.services.integrity.report import CheckReport
from studio.services.judging.config import JudgeConfig, JudgeProgress, JudgeSummary, last_config
from studio.services.judging.reparse import reparse
from studio.services.judging.run import run_judge
from studio.services.judging.stale import stale_plan
from studio.services.meta import comparison, scale
from studio.services.meta.embeddings import fd_leaderboard
from studio.services.rubric.cover import cover_leaderboard
from studio.services.rubric.diagnostics import bank_report
from studio.services.rubric.graded_files import import_graded
from studio.services.writes.label_writes import LabelWrites
from studio.store import Database, listing
from studio.store import judging as judge_store
from studio.store import labels as label_store
from studio.store.database import DEFAULT_WAIT_SECONDS
from studio.store.file_lock import WaitNotice

PathLike = str | Path


def _paths(files: PathLike | Sequence[PathLike]) -> list[Path]:
    if isinstance(files, str | Path):
        return [Path(files)]
    return [Path(f) for f in files]


class Project:
    """A project file: what is loaded into it and what can be asked of it.

    >>> project = Project.open(":memory:")
    >>> project.counts()["runs"]
    0
    """

    def __init__(self, database: Database) -> None:
        self.db = database
        self.engine = EvaluationEngine(database)
        self.writes = LabelWrites(self.engine)  # the one door through which labels change

    @classmethod
    def open(cls, path: PathLike, *, wait: float = DEFAULT_WAIT_SECONDS, notice: WaitNotice | None = None) -> Project:
        """Open (creating and migrating as needed) the project file at `path` (":memory:" allowed).

        Another process may be writing to it: this one waits up to `wait` seconds for its turn
        (`notice` hears whom it waits for) and raises ProjectBusy after that.
        """
        return cls(Database(path, wait=wait, notice=notice))

    def watch_changes(self) -> ChangeWatcher:
        """What other processes write from now on, applied to this project's leaderboards on `poll()`."""
        return ChangeWatcher(self.engine)

    @staticmethod
    def _followed(report: ImportReport, followed: Followed) -> ImportReport:
        if followed.changed:
            report.warnings.append(f"derived label sets updated: {', '.join(followed.changed)}")
        report.warnings.extend(followed.warnings())
        return report

    def release(self) -> None:
        """Let other processes have the file until the next call needs it (what is in memory stays)."""
        self.db.release()

    @property
    def path(self) -> str:
        return self.db.path

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Project:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    # -- imports -----------------------------------------------------------------------------

    def import_topics(self, files: PathLike | Sequence[PathLike]) -> ImportReport:
        return import_catalog.import_topics(self.db, _paths(files))

    def import_docs(
        self, files: PathLike | Sequence[PathLike], *, on_duplicate: OnDuplicate | str = OnDuplicate.ERROR
    ) -> ImportReport:
        """Documents; a docid repeated with the same text loads once, with another text it is refused
        unless `on_duplicate` is first or last."""
        return import_catalog.import_documents(self.db, _paths(files), on_duplicate=OnDuplicate(on_duplicate))

    def import_runs(
        self, files: PathLike | Sequence[PathLike], *, name: str | None = None, replace: bool = False
    ) -> ImportReport:
        report = import_trec.import_runs(self.db, _paths(files), name=name, replace=replace)
        self.engine.forget_runs()
        return report

    def import_qrels(
        self,
        files: PathLike | Sequence[PathLike],
        *,
        name: str | None = None,
        kind: LabelSetKind | str = LabelSetKind.HUMAN,
        on_duplicate: OnDuplicateGrade | str = OnDuplicateGrade.ERROR,
        replace: bool = False,
    ) -> ImportReport:
        report = import_trec.import_qrels(
            self.db,
            _paths(files),
            name=name,
            kind=LabelSetKind(kind),
            on_duplicate=OnDuplicateGrade(on_duplicate),
            replace=replace,
        )
        return self._followed(report, self.writes.written(report.names))

    def import_judgments(
        self, files: PathLike | Sequence[PathLike], *, name: str | None = None, replace: bool = False
    ) -> ImportReport:
        """UMBRELA-style judgment JSONL into an LLM label set."""
        report = import_trec.import_judgments(self.db, _paths(files), name=name, replace=replace)
        return self._followed(report, self.writes.written(report.names))

    def import_graded(
        self, file: PathLike, *, name: str, bank: str, llm: str | None = None, replace: bool = False
    ) -> ImportReport:
        """A Rubric-workbench graded file or nuggetizer assignments into a rubric label set."""
        report = import_graded(self.db, Path(file), name=name, bank=bank, llm=llm, replace=replace)
        return self._followed(report, self.writes.written([name], item_grades=[name]))

    def import_responses(
        self, files: PathLike | Sequence[PathLike], *, system: str | None = None, replace: bool = False
    ) -> ImportReport:
        return import_catalog.import_responses(self.db, _paths(files), system=system, replace=replace)

    def import_bank(
        self,
        files: PathLike | Sequence[PathLike],
        *,
        name: str | None = None,
        kind: str | None = None,
        replace: bool = False,
    ) -> ImportReport:
        """Test banks; a bank imported again with `replace` moves the bank scores made with it."""
        report = import_catalog.import_bank(self.db, _paths(files), name=name, kind=kind, replace=replace)
        return self._followed(report, self.writes.written(banks=report.names))

    # -- what is loaded --------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        return listing.counts(self.db.cursor())

    def topics(self) -> list[dict[str, Any]]:
        return listing.list_topics(self.db.cursor())

    def documents(self) -> list[dict[str, Any]]:
        return listing.list_documents(self.db.cursor())

    def runs(self) -> list[dict[str, Any]]:
        return listing.list_runs(self.db.cursor())

    def label_sets(self) -> list[dict[str, Any]]:
        return listing.list_label_sets(self.db.cursor())

    def banks(self) -> list[dict[str, Any]]:
        return listing.list_banks(self.db.cursor())

    def responses(self) -> list[dict[str, Any]]:
        return listing.list_responses(self.db.cursor())

    # -- evaluation ------------------------------------------------------------------------

    def leaderboard(self, qrels: str, measure: str = "nDCG@10", *, complete: bool = False) -> dict[str, float]:
        """{run: mean value} under a label set, as trec_eval computes it."""
        return self.engine.leaderboard(qrels, measure, complete=complete)

    def evaluate(
        self,
        qrels: str,
        measures: Sequence[str] = DEFAULT_MEASURES,
        *,
        per_topic: bool = False,
        complete: bool = False,
    ) -> list[dict[str, Any]]:
        """Rows of `studio eval`: {"run", "measure", "value", "topics"} (and "topic")."""
        return self.engine.eval_rows(qrels, list(measures), per_topic=per_topic, complete=complete)

    def correlation(
        self,
        ref: str,
        qrels: str,
        measure: str = "nDCG@10",
        *,
        complete: bool = False,
        details: bool = True,
        seed: int = 0,
    ) -> dict[str, Any]:
        """Kendall τ (τ-b), τ-a, Spearman ρ, τ_AP, RBO, swaps and topic intervals of two leaderboards."""
        return comparison.correlation(self.engine, ref, qrels, measure, complete=complete, details=details, seed=seed)

    def agreement(self, ref: str, qrels: str, *, clip: bool = False, **thresholds: Any) -> dict[str, Any]:
        """κ, Krippendorff's α, confusion matrix and alignment of two label sets (`clip`: the
        audited grades clipped into the reference's range)."""
        return comparison.agreement(
            self.engine, ref, scale.clipped(self.engine, ref, qrels) if clip else qrels, **thresholds
        )

    def compare(
        self,
        ref: str,
        qrels: list[str],
        measure: str = "nDCG@10",
        *,
        resamples: int = 1000,
        seed: int = 0,
        clip: bool = False,
    ) -> list[dict[str, Any]]:
        """One row per label set: κ, α, alignment, leniency, τ and τ_AP with bootstrap intervals,
        and the τ of its compatibility leaderboard against the reference's nDCG@10 leaderboard."""
        names = [scale.clipped(self.engine, ref, name) for name in qrels] if clip else qrels
        return comparison.compare(self.engine, ref, names, measure, resamples=resamples, seed=seed)

    def scale_warnings(self, ref: str, qrels: list[str]) -> list[str]:
        """A warning per label set holding grades outside the reference's range."""
        return scale.outside_scale(self.engine, ref, qrels)

    def disagreements(
        self,
        ref: str,
        qrels: str,
        measure: str = "nDCG@10",
        *,
        limit: int | None = None,
        order: str = "delta-tau",
    ) -> list[dict[str, Any]]:
        """The review queue: differently graded pairs, the most τ-changing first (`order="spread"`:
        those whose judges disagree most first)."""
        return comparison.disagreements(self.engine, ref, qrels, measure, limit=limit, order=order)

    def ensemble(self, members: Sequence[str], how: str, name: str, *, replace: bool = False) -> dict[str, Any]:
        """A derived label set combining `members` pair by pair (majority, mean or median), with
        each pair's spread; it follows its members."""
        return make_ensemble(self.engine, list(members), how, name, replace=replace)

    def ensemble_scores(self, name: str, ref: str = "human", measure: str = "nDCG@10") -> dict[str, Any]:
        """κ and Kendall τ against `ref` of each member of an ensemble and of the ensemble."""
        return ensemble_scores(self.engine, name, ref, measure)

    def set_label(
        self,
        qrels: str,
        qid: str,
        docid: str,
        grade: float | None,
        note: str | None = None,
        *,
        person: str | None = None,
    ) -> dict[str, Any]:
        """One audited label edit (None removes the label); leaderboards follow incrementally, and
        so do the derived label sets made from `qrels`. A derived set itself is not edited."""
        return self.writes.edit(qrels, qid, docid, grade, note=note, person=person)

    def undo(self, qrels: str | None = None) -> dict[str, Any] | None:
        """Revert the newest audited edit not yet undone; None when there is nothing to undo."""
        return self.writes.undo(qrels)

    # -- calibration ------------------------------------------------------------------------

    def calibrate(
        self,
        qrels: str,
        gold: str,
        name: str,
        *,
        method: str = "isotonic",
        folds: int = 5,
        seed: int = 0,
        measure: str = "nDCG@10",
        replace: bool = False,
    ) -> dict[str, Any]:
        """Label set `name`: `qrels` mapped to `gold`'s grades (isotonic or ordinal) with κ and τ
        cross-fitted by topic beside the raw set's; it follows both sources."""
        return make_calibration(
            self.engine, qrels, gold, name, method=method, folds=folds, seed=seed, measure=measure, replace=replace
        )

    def calibrations(self) -> list[dict[str, Any]]:
        """Every calibrated label set: sources, method, fitted map, cross-fitted figures, curve."""
        return calibrated_sets(self.db)

    def derive(
        self, source: str, bank: str, score: str, name: str, *, min_grade: float = 4.0, replace: bool = False
    ) -> dict[str, Any]:
        """Label set `name`: `score` (exam-binary, nugget-all, …) of the item grades of `source`'s newest
        rubric judge run with `bank`'s items; it follows both."""
        return make_bank_score(self.engine, source, bank, score, name, min_grade=min_grade, replace=replace)

    def refresh_derived(self) -> Followed:
        """Derive every derived label set afresh from its sources (after a judge run was killed, or
        another program wrote to the file): those whose labels changed, and those that cannot be."""
        return self.writes.refresh_all()

    def label_history(self, qrels: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
        return self.engine.history(qrels, limit)

    # -- audits -----------------------------------------------------------------------------

    def plan_audit(
        self,
        qrels: str,
        *,
        name: str,
        budget: int,
        design: str,
        strata: str | None = None,
        seed: int = 0,
        pilot: str | None = None,
    ) -> dict[str, Any]:
        """Draw a sample of `qrels`' pool (whole topics, pairs, or stratified pairs) with each unit's
        inclusion probability; its gold labels become the human label set `name`."""
        return audit_samples.plan_audit(
            self.db, qrels, name=name, budget=budget, design=design, strata=strata, seed=seed, pilot=pilot
        )

    def import_audit(self, audit: str, file: PathLike) -> dict[str, Any]:
        """Gold labels made elsewhere for the audit's sample (a pair outside it refuses the file)."""
        done = audit_gold.import_gold(self.db, audit, Path(file))
        self.writes.written([audit])
        return done

    def audits(self) -> list[dict[str, Any]]:
        return audit_gold.list_audits(self.db)

    def audit_budget(
        self, qrels: str, pilot: str, width: float, *, measure: str = "nDCG@10", strata: str = "grade"
    ) -> dict[str, Any]:
        """The sample each design needs for a 95% interval `width` wide, from the pilot's variances,
        and the Neyman allocation over strata."""
        return audit_planner.budget_plan(self.engine, qrels, pilot, width, measure=measure, strata=strata)

    def audit_pairs(self, name: str, *, remaining: bool = False) -> list[dict[str, Any]]:
        """The audit's sampled pairs in walk order with stratum, inclusion probability and gold grade."""
        return audit_gold.sample_pairs(self.db, name, remaining=remaining)

    def audit(self, name: str) -> dict[str, Any]:
        """An audit's design and progress (pairs graded of the sample, per stratum)."""
        return audit_gold.show_audit(self.db, name)

    def estimate(
        self,
        qrels: str,
        gold: str,
        measure: str = "nDCG@10",
        *,
        design: str = "topics",
        level: float = 0.95,
        tuned: bool = False,
    ) -> dict[str, Any]:
        """Each run's measure under full human judging, estimated from the LLM label set `qrels` and
        the partial gold set `gold` (prediction-powered), with intervals, settled run pairs and τ."""
        return audit_estimates.estimate(self.engine, qrels, gold, measure, design=design, level=level, tuned=tuned)

    def simulate_audit(
        self,
        ref: str,
        qrels: str,
        *,
        budget: int,
        design: str = "topics",
        trials: int = 1000,
        measure: str = "nDCG@10",
        seed: int = 0,
        level: float = 0.95,
        tuned: bool = False,
    ) -> dict[str, Any]:
        """Coverage and width of the estimates from `trials` random audits of `budget` units, `ref`
        taken as the truth."""
        return audit_simulation.simulate(
            self.engine,
            ref,
            qrels,
            budget=budget,
            design=design,
            trials=trials,
            measure=measure,
            seed=seed,
            level=level,
            tuned=tuned,
        )

    # -- judges -----------------------------------------------------------------------------

    def judge(
        self, config: JudgeConfig, *, stale_only: bool = False, backend: Backend | None = None
    ) -> Iterator[JudgeProgress | JudgeSummary]:
        """Run a judge into `config.name`: progress as calls are answered, the summary last. Every
        call is cached; the derived sets made from the label set follow it at the end."""
        if config.method == "embedding":
            # Imported when used: the embedding judge needs the optional sentence-transformers.
            from studio.services.meta.embeddings import embedding_judge

            summary = embedding_judge(self.db, config)
            self.writes.written([config.name])
            yield summary
            return
        yield from run_judge(self.db, config, backend, stale_only=stale_only, writes=self.writes)

    def judge_runs(self) -> list[dict[str, Any]]:
        """Every judge run with its configuration, prompt hash and counts."""
        return judge_store.list_judge_runs(self.db.cursor())

    def check(self) -> CheckReport:
        """Whether the project file is whole: current labels and bank items are the replay of their
        events, no row names a missing one, keys are held once, judge runs agree with their
        judgments (see `studio check`)."""
        return check_project(self.engine)

    def reparse_judge(self, label_set: str) -> dict[str, int]:
        """Parse the newest judge run's stored outputs again with the current parser (no calls)."""
        counts = reparse(self.db, label_set)
        self.writes.written([label_set], item_grades=[label_set])
        return counts

    def judge_failures(self, label_set: str, limit: int = 50) -> list[dict[str, Any]]:
        """The newest judge run's recorded failures, with the raw model output."""
        set_id = label_store.label_set_id(self.db.cursor(), label_set)
        if set_id is None:
            return []
        return judge_store.failures(self.db.cursor(), set_id, limit)

    def answer_leaderboard(self, qrels: str, *, resamples: int = 1000, seed: int = 0) -> list[dict[str, Any]]:
        """Generative systems ranked by the mean grade a label set gives their answers (judged with
        `--pool responses`), with a 95% bootstrap interval over topics."""
        return system_leaderboard(self.engine, qrels, resamples=resamples, seed=seed)

    def bank_report(self, bank: str, source: str, **options: Any) -> dict[str, Any]:
        """Diagnostics of a test bank from a rubric judge's item grades (see `studio bank report`)."""
        return bank_report(self.engine, bank, source, **options)

    def cover_leaderboard(self, source: str, bank: str, **options: Any) -> dict[str, Any]:
        """Rubric-Cover@k of every run from a rubric judge's item grades (see `studio bank cover`)."""
        return cover_leaderboard(self.engine, source, bank, **options)

    def stale_cells(self, label_set: str) -> list[dict[str, Any]]:
        """The cells of a rubric judge's label set that bank edits made stale (edited, new, deleted)."""
        plan = stale_plan(self.db, last_config(self.db, label_set))
        return [{"qid": c.qid, "docid": c.docid, "item_id": c.item_id, "reason": c.reason} for c in plan.stale]

    def fd_leaderboard(self, qrels: str, **options: Any) -> dict[str, Any]:
        """FD@k of every run: Fréchet distance between its top-k embeddings and the relevant ones
        (lower is better), with Kendall τ against the label set's leaderboard (see `studio fd`)."""
        return fd_leaderboard(self.engine, qrels, **options)
