"""The blind audit driven through Textual's Pilot, and its snapshots: the LLM's grade is not on the
screen before the pair is graded, the pairs come in the audit's stored random order (not Review's
Δτ order), grades are audited edits of the gold label set, and a reopened audit resumes at the
first pair not graded."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, OptionList
from tui_helpers import SIZE, Messages, drive, settle, settle_picture, text_of

from studio.domain.specs import AuditDrawSpec
from studio.services.audit.samples import audit_pairs
from studio.services.meta.review_queue import disagreements
from studio.services.project import Project
from studio.tui.app import StudioApp
from studio.tui.screens.audit import AuditScreen
from studio.tui.screens.audit_picker import AuditPicker
from studio.tui.screens.review import ReviewScreen

LLM = "umbrela-smol"


def with_audit(path: Path, name: str = "blind", budget: int = 8) -> list[tuple[str, str]]:
    with Project.open(path) as project:
        project.plan_audit(AuditDrawSpec(LLM, name=name, budget=budget, design="pairs", seed=5))
        return [(q, d) for q, d, _ in audit_pairs(project.db.cursor(), name)]


def on_audit(app: StudioApp) -> bool:
    return isinstance(app.screen, AuditScreen) and app.screen.session is not None


def shown_pair(app: StudioApp) -> tuple[str, str]:
    head = text_of(app, "#audit-head").split("\n")
    return head[0].split(" ")[0], head[1].split(" ")[0]


def llm_grade(project: Project, qid: str, docid: str) -> float:
    return project.engine.evaluator(LLM).labels[qid].judged[docid]


def screen_text(app: StudioApp) -> str:
    return "\n".join(text_of(app, f"#{name}") for name in ("status", "audit-head", "audit-passage", "reveal"))


def test_the_llm_grade_is_hidden_until_the_pair_is_graded(sample: Path) -> None:
    order = with_audit(sample)

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        project = app.state.project
        assert shown_pair(app) == order[0]
        assert not list(app.screen.query(DataTable))  # no judges' table, no leaderboard hints
        assert "had given" not in screen_text(app) and text_of(app, "#reveal") == ""
        await pilot.press("2")
        await settle(pilot)
        qid, docid = order[0]
        want = f"{qid} {docid}: you gave 2; {LLM} had given {llm_grade(project, qid, docid):g}"
        assert want in text_of(app, "#reveal")
        assert shown_pair(app) == order[1] and "1/8 graded" in text_of(app, "#status")
        events = (
            project.db.cursor()
            .execute(
                "SELECT e.qid, e.docid, e.grade, e.origin, e.source FROM label_events e JOIN label_sets s"
                " USING (label_set_id) WHERE s.name = 'blind'"
            )
            .fetchall()
        )
        assert events == [(qid, docid, 2.0, "person", "tester")]
        await pilot.press("u")
        await settle(pilot)
        assert shown_pair(app) == order[0] and "0/8 graded" in text_of(app, "#status")
        assert (
            project.engine.evaluator("blind").labels.get(qid) is None
            or docid not in project.engine.evaluator("blind").labels[qid].judged
        )

    drive(sample, steps, ready=on_audit, audit="blind")


def test_pairs_come_in_the_stored_order_not_by_delta_tau(sample: Path) -> None:
    order = with_audit(sample, budget=6)
    with Project.open(sample) as project:
        by_tau = [(d["qid"], d["docid"]) for d in disagreements(project.engine, "human", LLM)]
    assert [p for p in by_tau if p in order] != order  # the sample's order is not the queue's

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        seen = []
        for grade in "010203":
            seen.append(shown_pair(app))
            await pilot.press(grade)
            await settle(pilot)
        assert seen == order
        assert "every pair graded" in text_of(app, "#status")

    drive(sample, steps, ready=on_audit, audit="blind")


def test_a_reopened_audit_resumes_at_the_first_pair_not_graded(sample: Path) -> None:
    order = with_audit(sample)

    async def grade_two_skip_one(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        for key in ("3", "s", "1"):
            await pilot.press(key)
            await settle(pilot)
        assert shown_pair(app) == order[3]

    drive(sample, grade_two_skip_one, ready=on_audit, audit="blind")

    async def reopened(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        assert shown_pair(app) == order[1]  # the skipped pair was never graded: it comes first now
        assert "2/8 graded" in text_of(app, "#status")

    drive(sample, reopened, ready=on_audit, audit="blind")
    with Project.open(sample) as project:
        assert project.audit("blind")["done"] == 2


def test_b_on_review_picks_an_audit(sample: Path) -> None:
    with_audit(sample, name="first")
    order = with_audit(sample, name="second")

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen.loaded)
        await pilot.press("b")
        await settle(pilot, lambda: isinstance(app.screen, AuditPicker) and app.screen.audits is not None)
        options = app.screen.query_one(OptionList)
        assert [options.get_option_at_index(i).id for i in range(options.option_count)] == ["first", "second"]
        await pilot.press("down", "down", "enter")
        await settle(pilot, lambda: on_audit(app))
        assert shown_pair(app) == order[0]
        await pilot.press("escape")
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen))

    drive(sample, steps, screen="review", ref="human", qrels=LLM)


# -- snapshots ------------------------------------------------------------------------------------


@pytest.fixture()
def audit_file(sample_template: Path, tmp_path: Path) -> Path:
    """A copy of the sample project named as the header shows it, with an audit of 8 pairs."""
    target = tmp_path / "snap" / "sample.duckdb"
    target.parent.mkdir()
    shutil.copyfile(sample_template, target)
    with_audit(target)
    return target


@pytest.mark.parametrize("keys", [(), ("2",)], ids=["blind", "graded-one"])
def test_snapshot_blind_audit(audit_file: Path, keys: tuple[str, ...], snap_compare: Any) -> None:
    async def run(pilot: Pilot[Any]) -> None:
        await settle_picture(pilot, lambda: on_audit(pilot.app))  # type: ignore[arg-type]
        for key in keys:
            await pilot.press(key)
            await settle_picture(pilot)

    with Project.open(audit_file) as project:
        app = StudioApp(project, person="tester", audit="blind")
        assert snap_compare(app, terminal_size=SIZE, run_before=run)
