"""Ensembles of label sets and judges' self-consistency: combining, spreads, following members,
κ and τ against a reference, `judge --samples K`, the queue ordered by spread."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from helpers import cli, judge_all, scalar

from studio import Project
from studio.domain.errors import UsageError
from studio.domain.judging import JudgeConfig
from studio.domain.views import ReviewFilters
from studio.metrics import agreement as agree
from studio.metrics.correlation import kendall_tau_b
from studio.metrics.ensembles import combine, combine_sets, distribution_spread, majority, spread
from studio.services.report.build import build_report
from studio.services.review.session import ReviewSession
from studio.store import ensembles as ensemble_store


def test_majority_mean_median_on_hand_made_grades() -> None:
    assert combine([0, 2, 2], "majority") == 2
    assert combine([0, 2, 3], "mean") == pytest.approx(5 / 3)
    assert combine([0, 2, 3], "median") == 2
    assert combine([0, 3], "median") == 1.5
    # A tie goes to the tied grade nearest the median of all grades, then to the lower one.
    assert majority([0, 0, 3, 3, 2]) == 3  # median 2: 3 is nearer than 0
    assert majority([1, 2]) == 1
    assert majority([0, 3]) == 0
    assert tuple(spread([0, 2, 2])) == pytest.approx((3, np.std([0, 2, 2]), 0.0, 2.0))
    assert distribution_spread({0.0: 0.5, 1.0: 0.5}) == (0, 0.5, 0.0, 1.0)
    assert distribution_spread({0.0: 0.01, 1.0: 0.99}).low == 1.0  # under 5%: not in the range


def test_sets_combine_only_the_members_that_judged_a_pair() -> None:
    a = {"q": {"d1": 0.0, "d2": 3.0}}
    b = {"q": {"d1": 2.0, "d2": 3.0}}
    c = {"q": {"d1": 2.0}}
    combined, spreads = combine_sets([a, b, c], "majority")
    assert combined == {"q": {"d1": 2.0, "d2": 3.0}}
    assert spreads[("q", "d1")].judges == 3 and spreads[("q", "d2")] == (2, 0.0, 3.0, 3.0)
    assert combine_sets([a, b, c], "mean")[0]["q"]["d1"] == pytest.approx(4 / 3)


def _qrels(folder: Path, name: str, rows: dict[tuple[str, str], float]) -> Path:
    path = folder / f"{name}.txt"
    path.write_text("".join(f"{q} 0 {d} {g:g}\n" for (q, d), g in rows.items()))
    return path


@pytest.fixture
def small(tmp_path: Path) -> Iterator[Project]:
    with Project.open(tmp_path / "p.duckdb") as project:
        pairs = [("1", f"d{i}") for i in range(4)]
        for name, grades in {"human": [0, 1, 2, 3], "a": [0, 1, 3, 3], "b": [2, 1, 3, 0], "c": [2, 0, 1, 0]}.items():
            project.import_qrels(
                _qrels(tmp_path, name, dict(zip(pairs, map(float, grades), strict=True))),
                name=name,
                kind="human" if name == "human" else "llm",
            )
        yield project


def _labels(project: Project, name: str) -> dict[str, float]:
    return {docid: grade for docid, grade in project.engine.evaluator(name).labels["1"].judged.items()}


def test_ensemble_label_set_and_stored_spread(small: Project) -> None:
    made = small.ensemble(["a", "b", "c"], "majority", "E")
    assert made["labels"] == 4
    assert _labels(small, "E") == {"d0": 2.0, "d1": 1.0, "d2": 3.0, "d3": 0.0}
    stored = ensemble_store.spreads(small.db.cursor(), small.engine.label_set_id("E"))
    assert tuple(stored[("1", "d0")]) == pytest.approx((3, np.std([0, 2, 2]), 0.0, 2.0))
    assert stored[("1", "d1")].std == pytest.approx(np.std([1, 1, 0]))
    small.ensemble(["a", "b", "c"], "median", "M")
    assert _labels(small, "M") == {"d0": 2.0, "d1": 1.0, "d2": 3.0, "d3": 0.0}
    small.ensemble(["a", "b"], "mean", "avg")
    assert _labels(small, "avg") == {"d0": 1.0, "d1": 1.0, "d2": 3.0, "d3": 1.5}
    with pytest.raises(UsageError):
        small.ensemble(["a", "b"], "mean", "avg")  # exists: --replace
    with pytest.raises(UsageError):
        small.ensemble(["a", "E"], "mean", "E", replace=True)  # its own member


def test_an_ensemble_made_after_edits_is_followed_by_the_next_edit(small: Project) -> None:
    """Edits of sets nothing is made from skip the lookup of followers; making an ensemble (here,
    or a calibration, or in another process) makes its members followed at once."""
    small.set_label("c", "1", "d2", 1.0)  # c is followed by nothing yet
    assert "c" not in small.engine.followed()
    small.ensemble(["a", "b", "c"], "majority", "E")
    assert {"a", "b", "c"} <= small.engine.followed()
    small.set_label("c", "1", "d3", 3.0)  # now 3, 0, 3
    assert _labels(small, "E")["d3"] == 3.0


def test_a_member_edit_recomputes_the_ensemble(small: Project) -> None:
    small.ensemble(["a", "b", "c"], "majority", "E")
    assert _labels(small, "E")["d3"] == 0.0  # 3, 0, 0
    small.set_label("c", "1", "d3", 3.0)  # now 3, 0, 3
    assert _labels(small, "E")["d3"] == 3.0
    assert ensemble_store.spreads(small.db.cursor(), small.engine.label_set_id("E"))[("1", "d3")].high == 3.0
    small.undo("c")
    assert _labels(small, "E")["d3"] == 0.0
    # A member imported again recomputes the whole ensemble.
    small.import_qrels(
        _qrels(Path(small.path).parent, "b2", {("1", "d0"): 0.0, ("1", "d1"): 1.0, ("1", "d2"): 3.0, ("1", "d3"): 0.0}),
        name="b",
        kind="llm",
        replace=True,
    )
    assert _labels(small, "E")["d0"] == 0.0  # 0, 0, 2


def test_kappa_and_tau_equal_the_metrics_computed_directly(simulated_sample: Path, tmp_path: Path) -> None:
    with Project.open(simulated_sample) as project:
        judge_all(project.db, JudgeConfig(method="umbrela", backend="simulated", name="sim2", kappa=0.7, seed=3))
        project.ensemble(["sim", "sim2", "umbrela-smol"], "majority", "E")
        scores = project.ensemble_scores("E", "human")
        assert [r["qrels"] for r in scores["rows"]] == ["sim", "sim2", "umbrela-smol", "E"]
        board = project.leaderboard("human")
        for row in scores["rows"]:
            ref = project.engine.evaluator("human").labels
            other = project.engine.evaluator(row["qrels"]).labels
            pairs = [
                (g, other[q].judged[d])
                for q, t in ref.items()
                for d, g in t.judged.items()
                if q in other and d in other[q].judged
            ]
            a, b = (np.array(x, dtype=np.float64) for x in zip(*pairs, strict=True))
            assert row["kappa_graded"] == pytest.approx(agree.cohen_kappa(a, b))
            mine = project.leaderboard(row["qrels"])
            runs = sorted(board)
            assert row["kendall_tau"] == pytest.approx(
                kendall_tau_b(np.array([board[r] for r in runs]), np.array([mine[r] for r in runs]))
            )
        section = next(s for s in build_report(project, resamples=5).sections if s.key == "ensembles")
        assert [row["label set"] for row in section.tables[0].rows] == ["sim", "sim2", "umbrela-smol", "E"]
        assert section.tables[0].rows[-1]["κ graded"] == pytest.approx(scores["rows"][-1]["kappa_graded"])
    result = cli(
        simulated_sample, "ensemble", "--qrels", "sim", "--qrels", "sim2", "--how", "mean", "--name", "E2", "-f", "json"
    )
    assert result.exit_code == 0, result.stderr
    printed = json.loads(result.stdout)
    assert printed["how"] == "mean" and [r["qrels"] for r in printed["scores"]] == ["sim", "sim2", "E2"]


def test_samples_make_k_calls_per_pair_with_a_spread_and_reproduce(simulated_sample: Path) -> None:
    with Project.open(simulated_sample) as project:
        config = JudgeConfig(method="umbrela", backend="simulated", name="k3", kappa=0.5, samples=3, limit=20)
        summary = judge_all(project.db, config)
        assert summary.calls == 3 * summary.pairs == 60
        assert summary.self_consistency == "samples" and summary.samples == 3
        con = project.db.cursor()
        set_id = project.engine.label_set_id("k3")
        spreads = ensemble_store.spreads(con, set_id)
        assert len(spreads) == 20 and {s.judges for s in spreads.values()} == {3}
        assert any(s.std > 0 for s in spreads.values())
        keys = scalar(
            con,
            "SELECT count(DISTINCT call_key) FROM judgments j JOIN judge_runs r USING (judge_run_id)"
            " WHERE r.label_set_id = ?",
            [set_id],
        )
        assert keys == 60
        first = _all_labels(project, "k3")
        again = judge_all(
            project.db, JudgeConfig(method="umbrela", backend="simulated", name="k3b", kappa=0.5, samples=3, limit=20)
        )
        assert again.calls == 0  # the same seeds: the same calls, answered from the cache
        assert _all_labels(project, "k3b") == first
        other = judge_all(
            project.db,
            JudgeConfig(method="umbrela", backend="simulated", name="k3c", kappa=0.5, samples=3, limit=20, seed=7),
        )
        assert other.calls == 60 and _all_labels(project, "k3c") != first
        rerun = judge_all(project.db, config)
        assert rerun.calls == 0 and rerun.cache_hits == 60
        # K = 1 keeps today's call keys: the same answers as a judge without --samples.
        one = judge_all(
            project.db, JudgeConfig(method="umbrela", backend="simulated", name="one", kappa=0.4, samples=1)
        )
        assert one.calls == 0 and one.samples is None and "samples" not in one.as_dict()
        assert project.check().ok


def _all_labels(project: Project, name: str) -> dict[tuple[str, str], float]:
    project.engine.forget_labels(name)
    return {(q, d): g for q, t in project.engine.evaluator(name).labels.items() for d, g in t.judged.items()}


def test_the_queue_ordered_by_spread(small: Project) -> None:
    small.ensemble(["a", "b", "c"], "majority", "E")
    by_tau = small.disagreements("human", "E")
    by_spread = small.disagreements("human", "E", order="spread")
    assert {(r["qid"], r["docid"]) for r in by_tau} == {(r["qid"], r["docid"]) for r in by_spread}
    spreads = [r.get("spread") or 0.0 for r in by_spread]
    assert spreads == sorted(spreads, reverse=True) and spreads[0] == pytest.approx(np.std([3, 0, 0]), abs=1e-6)
    session = ReviewSession(small, "human", "E", filters=ReviewFilters.parse("spread"))
    session.load()
    assert [(p["qid"], p["docid"]) for p in session.queue] == [(r["qid"], r["docid"]) for r in by_spread]
    small.release()
    result = cli(small.path, "disagreements", "--ref", "human", "--qrels", "E", "--order", "spread", "-f", "json")
    assert [r["docid"] for r in json.loads(result.stdout)] == [r["docid"] for r in by_spread]
