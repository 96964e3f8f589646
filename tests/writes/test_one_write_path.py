"""Every door through which labels change keeps every derived label set equal to a fresh derivation.

A hypothesis state machine drives random sequences of changes through each path a user has:
`studio label`/`undo` (the Python API), Review decisions and their undo, blind-audit grades and
their undo, judge runs (an LLM judge and a rubric judge), a label set imported again with
--replace and bank edits. The project holds derived sets of every kind, some made from others
(an ensemble of an ensemble, a calibration of an ensemble, an ensemble over an audit's gold set,
a bank score). After every step each derived set must equal what its sources make of it now,
and every label set's cached leaderboard must hold the stored labels.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import ClassVar

import pytest
from helpers import copy_project
from hypothesis import HealthCheck, seed, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test
from hypothesis_profiles import PROFILE, examples

from studio import Project
from studio.domain.errors import UsageError
from studio.domain.judging import JudgeConfig, JudgeSummary
from studio.domain.specs import AuditDrawSpec, CalibrationSpec
from studio.services.audit.session import AuditSession
from studio.services.derived.freshness import freshness
from studio.services.review.session import ReviewSession
from studio.services.rubric.editing import BankEditor
from studio.store import labels as label_store

SOURCES = ("sim", "umbrela-smol", "human")  # label sets that derived sets are made from
DERIVED = ("E", "EE", "cal", "cal-E", "G", "exam-bin")
RUBRIC_TOPICS = ["1003", "1004"]
GRADES = st.sampled_from([0.0, 1.0, 2.0, 3.0])


def rubric_judge(seed: int) -> JudgeConfig:
    return JudgeConfig(
        method="exam-nugget", backend="simulated", name="exam-sim", bank="nuggets", topics=RUBRIC_TOPICS, seed=seed
    )


def judged(project: Project, config: JudgeConfig) -> JudgeSummary:
    events = list(project.judge(config))
    summary = events[-1]
    assert isinstance(summary, JudgeSummary)
    return summary


@pytest.fixture(scope="module")
def derived_template(simulated_sample_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample project with `sim` and derived sets of every kind, some made from others."""
    path = copy_project(simulated_sample_template, tmp_path_factory.mktemp("derived"), "derived.duckdb")
    with Project.open(path) as project:
        project.ensemble(["sim", "umbrela-smol"], "mean", "E")
        project.ensemble(["E", "human"], "majority", "EE")
        project.calibrate(CalibrationSpec("umbrela-smol", "human", "cal", folds=3))
        project.calibrate(CalibrationSpec("E", "human", "cal-E", folds=3))
        project.plan_audit(AuditDrawSpec("umbrela-smol", name="gold", budget=12, design="pairs", seed=1))
        project.ensemble(["gold", "sim"], "majority", "G")
        judged(project, rubric_judge(0))
        project.derive("exam-sim", "nuggets", "exam-binary", "exam-bin")
        assert not freshness(project.engine).stale
    return path


def pairs_of(project: Project, name: str) -> dict[tuple[str, str], float]:
    con = project.db.cursor()
    set_id = label_store.label_set_id(con, name)
    assert set_id is not None
    return {(r.qid, r.docid): r.grade for r in label_store.current_labels(con, set_id)}


class WritePaths(RuleBasedStateMachine):
    template: ClassVar[Path]
    pairs: ClassVar[list[tuple[str, str]]]

    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp())
        self.project = Project.open(copy_project(self.template, self.folder))

    def teardown(self) -> None:
        try:
            report = self.project.check()
            # A derived set its sources cannot make any more (a calibration left with one shared
            # topic) is reported, as it must be; every other check holds.
            blocked = freshness(self.project.engine).blocked
            assert [c.name for c in report.checks if not c.ok] == (["derived"] if blocked else [])
        finally:
            self.project.close()
            shutil.rmtree(self.folder, ignore_errors=True)

    def pair(self, index: int) -> tuple[str, str]:
        return self.pairs[index % len(self.pairs)]

    # -- studio label / undo -------------------------------------------------------------------------

    @rule(source=st.sampled_from(SOURCES), index=st.integers(0, 10_000), grade=GRADES | st.none())
    def label(self, source: str, index: int, grade: float | None) -> None:
        self.project.set_label(source, *self.pair(index), grade, person="cli")

    @rule()
    def undo(self) -> None:
        self.project.undo()

    @rule(name=st.sampled_from(DERIVED), index=st.integers(0, 10_000), grade=GRADES)
    def a_derived_set_is_not_edited(self, name: str, index: int, grade: float) -> None:
        before = pairs_of(self.project, name)
        with pytest.raises(UsageError, match="derived"):
            self.project.set_label(name, *self.pair(index), grade)
        assert pairs_of(self.project, name) == before

    # -- Review and the blind audit ------------------------------------------------------------------

    @rule(
        source=st.sampled_from(("sim", "umbrela-smol")),
        action=st.sampled_from(("grade", "accept", "reference", "skip", "undo")),
        grade=GRADES,
    )
    def review(self, source: str, action: str, grade: float) -> None:
        session = ReviewSession(self.project, "human", source, person="reviewer")
        session.load()
        if action == "undo":
            session.undo()
        elif not session.done:
            view = session.view()
            assert view is not None
            if action == "grade":
                session.set_grade(grade)
            elif action == "accept" and view.grade is not None:
                session.accept()
            elif action == "reference" and view.ref_grade is not None:
                session.keep_reference()
            else:
                session.skip()

    @rule(undo=st.booleans(), grade=GRADES)
    def blind_audit(self, undo: bool, grade: float) -> None:
        session = AuditSession(self.project, "gold", person="auditor")
        session.load()
        if undo:
            session.undo()
        elif not session.finished:
            session.grade(grade)

    # -- writes of whole label sets, item grades and banks --------------------------------------------

    @rule(seed=st.integers(0, 50))
    def judge(self, seed: int) -> None:
        judged(self.project, JudgeConfig(method="umbrela", backend="simulated", name="sim", kappa=0.4, seed=seed))

    @rule(seed=st.integers(1, 50))
    def rubric_judge_again(self, seed: int) -> None:
        judged(self.project, rubric_judge(seed))

    @rule(grades=st.lists(GRADES, min_size=5, max_size=40))
    def import_again_with_replace(self, grades: list[float]) -> None:
        file = self.folder / "again.qrels"
        pairs = sorted(pairs_of(self.project, "umbrela-smol"))[: len(grades)]
        file.write_text("".join(f"{q} 0 {d} {g:g}\n" for (q, d), g in zip(pairs, grades, strict=False)))
        self.project.import_qrels(file, name="umbrela-smol", kind="llm", replace=True)

    @precondition(lambda self: len(BankEditor(self.project.db, "nuggets").items(RUBRIC_TOPICS[0])) > 1)
    @rule(index=st.integers(0, 100), delete=st.booleans())
    def bank_edit(self, index: int, delete: bool) -> None:
        editor = BankEditor(self.project.db, "nuggets", person="editor", writes=self.project.writes)
        items = editor.items(RUBRIC_TOPICS[0])
        item = items[index % len(items)]
        if delete:
            editor.delete(item["item_id"])
        else:
            editor.weight(item["item_id"], "okay" if item["importance"] == "vital" else "vital")

    # -- what must hold after every step --------------------------------------------------------------

    @invariant()
    def derived_sets_equal_a_fresh_derivation(self) -> None:
        stale = freshness(self.project.engine).stale
        assert not stale, stale

    @invariant()
    def cached_leaderboards_hold_the_stored_labels(self) -> None:
        for row in self.project.label_sets():
            name = str(row["name"])
            cached = {
                (q, d): g
                for q, topic in self.project.engine.evaluator(name).labels.items()
                for d, g in topic.judged.items()
            }
            assert cached == pairs_of(self.project, name), name


# The twelve sequences run as three parts of four, each from a seed of its own, so that the test
# processes share them (one sequence of eight steps takes seconds: each step checks every derived set).
PARTS = 3
SEQUENCES = 12


@pytest.mark.slow
@pytest.mark.parametrize("part", range(PARTS))
def test_every_write_path_keeps_derived_sets_fresh(part: int, derived_template: Path) -> None:
    with Project.open(derived_template) as project:
        WritePaths.pairs = sorted(pairs_of(project, "human"))
    WritePaths.template = derived_template
    machine = type(f"WritePathsPart{part}", (WritePaths,), {})
    fixed = PROFILE != "thorough"  # the thorough profile draws afresh in every part
    run_state_machine_as_test(
        seed(part)(machine) if fixed else machine,
        settings=settings(
            max_examples=max(1, examples(SEQUENCES) // PARTS),
            stateful_step_count=8,
            deadline=None,
            derandomize=False,  # each part its own draws: from its seed (or fresh, thorough)
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
