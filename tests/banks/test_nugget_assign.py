"""nugget-assign: windows of at most 10 nuggets per call, support / partial_support / not_support
per nugget, nugget scores as label sets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakes import ScriptedBackend
from helpers import cli, judge_all

from studio import Project
from studio.banks.derived import nugget_scores
from studio.domain.judging import JudgeConfig
from studio.judges.backend import ChatRequest
from studio.judges.methods import get_method
from studio.judges.parsing import parse_assignments
from studio.store import banks as bank_store

TOPIC = "1004"  # 11 nuggets: two windows per document


@pytest.mark.parametrize(
    "text, labels",
    [
        ("['support', 'not_support']", [1.0, 0.0]),
        ('Labels: ["partial_support", "support"]', [0.5, 1.0]),
        ("['support']", [None, None]),  # one label for two nuggets: the window fails
        ("['support', 'maybe']", [1.0, None]),
        ("", [None, None]),
        ("support, support", [None, None]),
    ],
)
def test_parse_assignments(text: str, labels: list[float | None]) -> None:
    assert [p.label for p in parse_assignments(text, 2)] == labels


def test_prompt_is_the_nuggetizer_assigner() -> None:
    method = get_method("nugget-assign")
    assert method.window == 10
    system, user = method.prompt.render(query="q", context="c", nuggets="['a']", num_nuggets="1")
    assert system[1].startswith("You are NuggetizeAssignerLLM") and user[1].endswith("Labels:")
    assert "label each of the 1 nuggets" in user[1] and "Nugget List: ['a']" in user[1]


def window_size(request: ChatRequest) -> int:
    """How many nuggets a window asks about (its subject is qid, docid, then the items)."""
    return len(request.subject) - 2


def assign(request: ChatRequest) -> str:
    """Supports the first nugget of every window, partially the second, none of the others."""
    size = window_size(request)
    labels = ["support", "partial_support"] + ["not_support"] * (size - 2)
    return repr(labels[:size])


def test_windows_item_labels_and_nugget_scores(sample: Path) -> None:
    db = sample  # a copy of the sample project, built once per test process
    with Project.sample(db) as project:
        backend = ScriptedBackend(assign, name="assigner", model="assigner")
        config = JudgeConfig(
            method="nugget-assign", backend="assigner", name="assign", bank="nuggets", topics=[TOPIC], limit=3
        )
        judge_all(project.db, config, backend)
        con = project.db.cursor()
        bank = bank_store.bank_id(con, "nuggets")
        assert bank is not None
        items = [i for i in bank_store.current_items(con, bank) if i.qid == TOPIC]
        assert [window_size(r) for r in backend.requests] == [10, len(items) - 10] * 3
        rows = con.execute("SELECT docid, item_id, label FROM judgments WHERE item_id IS NOT NULL").fetchall()
        assert len(rows) == 3 * len(items)
        first_window = [i.item_id for i in items[:10]]
        labels = {(d, i): g for d, i, g in rows}
        docs = {d for d, _, _ in rows}
        assert all(labels[(d, first_window[0])] == 1.0 and labels[(d, first_window[1])] == 0.5 for d in docs)
        # the judge's label set: nugget score All (plain), computed independently here
        names = {1.0: "support", 0.5: "partial_support", 0.0: "not_support"}
        assignments = {TOPIC: {d: {i: names[g] for (dd, i), g in labels.items() if dd == d} for d in docs}}
        want = nugget_scores(assignments, items, "all")[TOPIC]
        got = dict(
            con.execute(
                "SELECT l.docid, l.grade FROM labels l JOIN label_sets s USING (label_set_id) WHERE s.name = 'assign'"
            ).fetchall()
        )
        assert got == want

    result = cli(
        db,
        "derive",
        "--from",
        "assign",
        "--bank",
        "nuggets",
        "--score",
        "nugget-vital-strict",
        "--name",
        "vs",
        "-f",
        "json",
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["labels"] == 3
    with Project.open(db) as project:
        assert project.leaderboard("vs", "nDCG@10")


def test_nugget_scores_refuse_exam_grades(sample: Path) -> None:
    db = sample  # a copy of the sample project, built once per test process
    with Project.sample(db) as project:
        config = JudgeConfig(
            method="exam-nugget", backend="simulated", name="exam", bank="nuggets", topics=[TOPIC], limit=2
        )
        judge_all(project.db, config)
    result = cli(db, "derive", "--from", "exam", "--bank", "nuggets", "--score", "nugget-all")
    assert result.exit_code == 2 and "nugget-assign" in result.stderr
