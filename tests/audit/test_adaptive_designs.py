"""The designs whose π an LLM-only signal sets: probabilities that sum to the budget within (0, 1],
draws that honour them, Horvitz–Thompson estimates unbiased over them, their coverage on the
sample project, the stored π and strata an estimate reads back, and the planner's choice on a
project whose per-topic differences are heavy-tailed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import known

from studio import Project
from studio.domain.audit_results import AuditPlan, TopicStratumDraw, UncertaintyDraw
from studio.domain.errors import UsageError
from studio.domain.specs import AuditDrawSpec, AuditSimulationSpec
from studio.metrics import ppi
from studio.metrics import unequal_sampling as us
from studio.services.audit.units import gold_design
from studio.store import audits as audit_store

LLM = "umbrela-smol"


def uncertainty_draw(drawn: AuditPlan) -> UncertaintyDraw:
    """A `pairs-uncertainty` draw's one row (told from the other designs' rows by `from`)."""
    (row,) = drawn["strata_rows"]
    assert "from" in row
    return row


def topic_stratum_draws(drawn: AuditPlan) -> list[TopicStratumDraw]:
    """A `topics-neyman` draw's rows, one per stratum (told from the other designs' rows by `topics`)."""
    rows = [row for row in drawn["strata_rows"] if "topics" in row]
    assert rows and len(rows) == len(drawn["strata_rows"])
    return rows


def test_mixed_probabilities_sum_to_the_budget_within_0_and_1() -> None:
    scores = np.random.default_rng(0).gamma(0.3, 1.0, 200)
    scores[:3] = 1e3  # far more likely wrong than the rest: drawn for sure, the budget shared by the others
    for budget in (5, 40, 150):
        pi = us.mixed_probabilities(scores, budget)
        assert pi.sum() == pytest.approx(budget)
        assert (pi > 0).all() and (pi <= 1.0).all()
        assert pi.min() >= us.UNIFORM_SHARE * budget / 200 * 0.999 or (pi[:3] == 1.0).all()
    assert (us.mixed_probabilities(scores, 40)[:3] == 1.0).all()
    assert us.mixed_probabilities(np.zeros(10), 4) == pytest.approx(np.full(10, 0.4))


def test_systematic_draws_take_the_budget_and_each_unit_with_its_probability() -> None:
    pi = us.mixed_probabilities(np.random.default_rng(1).gamma(0.5, 1.0, 30), 8)
    trials = 20_000
    masks = us.systematic_draw(pi, trials, np.random.default_rng(2))
    assert (masks.sum(axis=1) == 8).all()
    error = np.sqrt(pi * (1 - pi) / trials)
    assert np.abs(masks.mean(axis=0) - pi) == pytest.approx(0, abs=float(5 * error.max()))


@pytest.mark.parametrize("estimator", ["ppi", "gold"])
def test_horvitz_thompson_estimates_are_unbiased_under_the_uncertainty_design(estimator: str) -> None:
    rng = np.random.default_rng(3)
    gold = rng.integers(0, 4, 40).astype(float)
    llm = np.where(rng.random(40) < 0.6, gold, rng.integers(0, 4, 40)).astype(float)
    predicted = np.abs(gold - llm) + 0.3  # the predicted error: informative, not exact
    a, b = gold[:, None] / 40, llm[:, None] / 40
    pi = us.mixed_probabilities(predicted, 10)
    masks = us.systematic_draw(pi, 40_000, np.random.default_rng(4))
    found = ppi.estimate_totals(masks, a, b, pi, estimator=estimator)
    spread = found.estimate[:, 0].std() / np.sqrt(len(masks))
    assert found.estimate[:, 0].mean() == pytest.approx(a.sum(), abs=4 * spread)


def test_neyman_topic_strata_are_unbiased_and_give_each_stratum_two() -> None:
    rng = np.random.default_rng(5)
    signal = rng.poisson(6, 24).astype(float).tolist()
    labels, names = us.quantile_strata(signal, 3)
    assert len(names) == 3 and sorted(set(labels.tolist())) == [0, 1, 2]
    sizes = [int((labels == h).sum()) for h in range(3)]
    counts = us.neyman_counts(sizes, [0.1, 0.1, 5.0], 8)
    assert sum(counts) == 8 and min(counts) >= us.MIN_PER_STRATUM
    a = (signal * rng.uniform(0.5, 1.5, 24))[:, None] / 24
    masks = us.stratified_draw(labels, counts, 30_000, np.random.default_rng(6))
    pi = np.array([counts[h] / sizes[h] for h in labels])
    found = ppi.estimate_totals(masks, a, None, pi, strata=labels)
    spread = found.estimate[:, 0].std() / np.sqrt(len(masks))
    assert found.estimate[:, 0].mean() == pytest.approx(a.sum(), abs=4 * spread)
    assert ((masks[:, labels == 2].sum(axis=1)) == counts[2]).all()


@pytest.mark.parametrize(
    ("design", "budget", "measure"), [("pairs-uncertainty", 80, "P(rel=2)@10"), ("topics-neyman", 6, "nDCG@10")]
)
def test_a_small_seeded_simulation_covers(sample: Path, design: str, budget: int, measure: str) -> None:
    with Project.open(sample) as project:
        found = project.simulate_audit(
            AuditSimulationSpec("human", LLM, budget=budget, design=design, trials=200, seed=1, measure=measure)
        )
    assert known(found["coverage"]) >= 0.9
    assert known(found["uniform_width"]) > 0 and known(found["width_vs_uniform"]) == pytest.approx(
        known(found["width"]) / known(found["uniform_width"])
    )


def test_an_uncertainty_audit_stores_the_probabilities_it_was_drawn_with(sample: Path) -> None:
    with Project.open(sample) as project:
        drawn = project.plan_audit(AuditDrawSpec(LLM, name="u", budget=40, design="pairs-uncertainty", seed=2))
        design, pi = audit_store.inclusion_probabilities(project.db.cursor(), "u")
        assert design == "pairs-uncertainty" and len(pi) == drawn["units"] == 40
        assert all(0 < p <= 1 for p in pi.values())
        row = uncertainty_draw(drawn)
        assert row["from"].startswith("label distributions")
        assert row["min_inclusion"] <= min(pi.values()) and max(pi.values()) <= row["max_inclusion"]
        assert gold_design(project.engine, "u", "pairs").probabilities == pi
        with pytest.raises(UsageError, match="use --design pairs"):
            gold_design(project.engine, "u", "topics")


def test_a_neyman_topic_audit_reads_its_strata_back_for_the_estimate(sample: Path) -> None:
    with Project.open(sample) as project:
        drawn = project.plan_audit(AuditDrawSpec(LLM, name="t", budget=6, design="topics-neyman", seed=2))
        found = gold_design(project.engine, "t", "topics")
        assert found.topic_strata is not None and len(found.topic_strata) == drawn["population"] == 10
        rows = topic_stratum_draws(drawn)
        assert sum(r["drawn"] for r in rows) == 6
        assert found.probabilities is not None
        for row in rows:
            assert row["inclusion"] == pytest.approx(row["drawn"] / row["topics"])


def test_uncertainty_without_distributions_or_pilot_is_refused(tmp_path: Path) -> None:
    (tmp_path / "llm.txt").write_text("q1 0 d1 2\nq1 0 d2 0\nq2 0 d3 1\n")
    with Project.open(tmp_path / "p.duckdb") as project:
        project.import_qrels(tmp_path / "llm.txt", name="llm", kind="llm")
        with pytest.raises(UsageError, match="label distributions"):
            project.plan_audit(AuditDrawSpec("llm", name="u", budget=2, design="pairs-uncertainty"))


def test_an_ensemble_draws_where_its_members_disagree(tmp_path: Path) -> None:
    """Without distributions or a pilot, an ensemble's spread (the members' standard deviation
    behind each label) is the predicted error: pairs its members disagree on are drawn with a
    larger π than pairs they agree on, and a label set with neither is still refused."""
    lines: dict[str, list[str]] = {name: [] for name in ("a", "b", "c")}
    for d in range(40):
        split = d % 4 == 0  # one pair in four: the members disagree
        for i, name in enumerate(lines):
            grade = (i if split else 1) if d % 2 == 0 else 0
            lines[name].append(f"q{d % 5} 0 d{d} {grade}\n")
    with Project.open(tmp_path / "p.duckdb") as project:
        for name, rows in lines.items():
            (tmp_path / f"{name}.txt").write_text("".join(rows))
            project.import_qrels(tmp_path / f"{name}.txt", name=name, kind="llm")
        project.ensemble(["a", "b", "c"], "mean", "ens")
        drawn = project.plan_audit(AuditDrawSpec("ens", name="u", budget=10, design="pairs-uncertainty", seed=1))
        row = uncertainty_draw(drawn)
        assert row["from"] == "label spread (40 pairs)"
        # Half the budget is spread uniformly (10/40 · 0.5 each), the other half over the 10 pairs
        # whose members disagree (equal spreads: 10 · 0.5 / 10 more each).
        assert row["min_inclusion"] == pytest.approx(0.125)
        assert row["max_inclusion"] == pytest.approx(0.625)
        with pytest.raises(UsageError, match="spread behind its labels"):
            project.plan_audit(AuditDrawSpec("a", name="v", budget=10, design="pairs-uncertainty", seed=1))


def heavy_tailed_project(folder: Path, seed: int = 3) -> Project:
    """40 topics of 20 pairs; on two of them people grade most pairs relevant and the LLM none, so
    the per-topic differences gold − LLM are heavy-tailed; elsewhere the LLM agrees nine times in ten."""
    rng = np.random.default_rng(seed)
    human: list[str] = []
    llm: list[str] = []
    runs: dict[int, list[str]] = {r: [] for r in range(6)}
    for t in range(40):
        far = t < 2
        grades = (rng.random(20) < (0.6 if far else 0.3)).astype(int) * 2
        for d, g in enumerate(grades):
            human.append(f"q{t} 0 d{t}-{d} {g}\n")
            llm.append(f"q{t} 0 d{t}-{d} {0 if far else (g if rng.random() < 0.9 else 2 - g)}\n")
        for r in range(6):
            score = rng.normal(0, 1, 20) + r / 5 * grades
            runs[r] += [f"q{t} Q0 d{t}-{d} {k + 1} {score[d]:.3f} run{r}\n" for k, d in enumerate(np.argsort(-score))]
    (folder / "human.txt").write_text("".join(human))
    (folder / "llm.txt").write_text("".join(llm))
    for r, lines in runs.items():
        (folder / f"run{r}.txt").write_text("".join(lines))
    project = Project.open(folder / "p.duckdb")
    project.import_runs(sorted(folder.glob("run*.txt")))
    project.import_qrels(folder / "human.txt", name="human")
    project.import_qrels(folder / "llm.txt", name="llm", kind="llm")
    return project


def test_the_planner_recommends_pairs_when_topic_differences_are_heavy_tailed(tmp_path: Path) -> None:
    with heavy_tailed_project(tmp_path) as project:
        found = project.recommend_audit_design("llm", 300, pilot="human", trials=200, seed=1, measure="P(rel=2)@10")
    by_design = {row["design"]: row for row in found["designs"]}
    assert by_design["topics"]["units"] == 15 and known(by_design["topics"]["coverage"]) < 0.93
    assert found["recommended"] in ("pairs", "pairs-uncertainty")
    assert known(by_design[known(found["recommended"])]["coverage"]) >= 0.93
    assert "the topic design covers" in found["reason"] and "below 0.93" in found["reason"]
    assert found["basis"].startswith("the pilot human")
    assert found["warnings"] == []  # the pilot grades every pair: a truth worth simulating


def test_without_a_pilot_the_recommendation_says_it_rests_on_the_llm_labels(sample: Path) -> None:
    with Project.open(sample) as project:
        found = project.recommend_audit_design(LLM, 60, trials=50, seed=1)
    assert "rests on the LLM's labels" in found["basis"]
    assert found["recommended"] in {row["design"] for row in found["designs"]}


def test_a_sparse_pilot_is_named_a_poor_truth(sample: Path, tmp_path: Path) -> None:
    with Project.open(sample) as project:
        human = project.engine.evaluator("human")
        judged = [(q, d, g) for q, topic in human.labels.items() for d, g in topic.judged.items()]
        (tmp_path / "pilot.txt").write_text("".join(f"{q} 0 {d} {g:g}\n" for q, d, g in judged[::10]))
        project.import_qrels(tmp_path / "pilot.txt", name="pilot")
        found = project.recommend_audit_design(LLM, 60, pilot="pilot", trials=20, seed=1)
    (warning,) = found["warnings"]
    assert warning.startswith("the pilot pilot grades") and "counts every pair it lacks as not relevant" in warning
