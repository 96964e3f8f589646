"""Audit samples: inclusion probabilities per design, Neyman allocation, the seed, the walk order,
importing gold labels for the sample, and `audit_design` for a gold label set."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import known, scalar

from studio import Project
from studio.domain.audit_results import AuditPlan, AuditUnit, StratumDraw
from studio.domain.errors import InputError, UsageError
from studio.domain.specs import AuditDrawSpec
from studio.metrics.sampling import allocate, capped_shares, simple_sample_size, stratified_sample_size
from studio.services.audit.planner import budget_plan
from studio.services.audit.samples import audit_design, audit_pairs, pilot_differences, pool_pairs
from studio.store import audits as audit_store

LLM = "umbrela-smol"  # the sample project's LLM label set: 280 pairs of 10 topics, like `human`


def units(project: Project, name: str) -> list[AuditUnit]:
    found = audit_store.audit(project.db.cursor(), name)
    assert found is not None
    return audit_store.units(project.db.cursor(), found["audit_id"])


def stratum_draws(drawn: AuditPlan) -> list[StratumDraw]:
    """A stratified draw's rows, one per stratum (told from the other designs' rows by `pairs`)."""
    rows = [row for row in drawn["strata_rows"] if "pairs" in row]
    assert rows and len(rows) == len(drawn["strata_rows"])
    return rows


def test_pairs_design_probabilities_sum_to_the_budget(sample: Path) -> None:
    with Project.open(sample) as project:
        drawn = project.plan_audit(AuditDrawSpec(LLM, name="a", budget=25, design="pairs", seed=3))
        design, pi = audit_store.inclusion_probabilities(project.db.cursor(), "a")
        assert design == "pairs" and drawn["population"] == 280 and len(pi) == 25
        assert list(pi.values()) == pytest.approx([25 / 280] * 25)
        pool = {(q, d) for q, d, _ in audit_store.pool(project.db.cursor(), LLM)}
        assert set(pi) <= pool
        # every pair of the pool had the same chance: Σ over the pool of π = n
        assert len(pool) * next(iter(pi.values())) == pytest.approx(25)
        assert scalar(project.db.cursor(), "SELECT kind FROM label_sets WHERE name = 'a'") == "human"


def test_topics_design_is_n_over_N_and_walks_every_pair_of_a_drawn_topic(sample: Path) -> None:
    with Project.open(sample) as project:
        project.plan_audit(AuditDrawSpec(LLM, name="t", budget=3, design="topics", seed=1))
        design, pi = audit_design(project.engine, "t")
        assert design == "topics" and len(pi) == 3 and list(pi.values()) == pytest.approx([3 / 10] * 3)
        assert 10 * next(iter(pi.values())) == pytest.approx(3)  # Σ over the 10 topics of π = n
        assert all(isinstance(key, str) for key in pi)
        walked = audit_pairs(project.db.cursor(), "t")
        pool = [(q, d) for q, d, _ in audit_store.pool(project.db.cursor(), LLM) if q in pi]
        assert sorted((q, d) for q, d, _ in walked) == sorted(pool)
        # topic by topic, in the units' stored order
        order = [u["qid"] for u in units(project, "t")]
        assert list(dict.fromkeys(q for q, _, _ in walked)) == order


def test_the_seed_reproduces_the_sample_and_its_order(sample: Path) -> None:
    with Project.open(sample) as project:
        for name, seed in (("a", 7), ("b", 7), ("c", 8)):
            project.plan_audit(AuditDrawSpec(LLM, name=name, budget=12, design="stratified", strata="grade", seed=seed))
        a, b, c = (units(project, n) for n in "abc")
        assert a == b and a != c
        assert sorted(u["position"] for u in a) == list(range(12))
        assert [u["position"] for u in sorted(a, key=lambda u: (u["qid"], str(u["docid"])))] != list(range(12))


def test_stratified_neyman_allocation_follows_the_formula(sample: Path) -> None:
    with Project.open(sample) as project:
        budget = 40
        drawn = project.plan_audit(
            AuditDrawSpec(LLM, name="s", budget=budget, design="stratified", strata="grade", pilot="human")
        )
        assert drawn["allocation"] == "neyman" and drawn["pilot"] == "human"
        pairs = pool_pairs(project.db.cursor(), LLM, "grade")
        _, differences = pilot_differences(project.db.cursor(), LLM, "human")
        rows = stratum_draws(drawn)
        sizes, spreads = [], []
        for row in rows:
            values = [differences[(p.qid, p.docid)] for p in pairs if p.stratum == row["stratum"]]
            sizes.append(len(values))
            spreads.append(float(np.std(values, ddof=1)))
            assert row["pairs"] == len(values) and row["sd"] == pytest.approx(spreads[-1])
        ideal = np.array(sizes) * np.array(spreads) * budget / sum(n * s for n, s in zip(sizes, spreads, strict=True))
        drawn_counts = np.array([row["drawn"] for row in rows])
        assert drawn_counts.sum() == budget and np.all(np.abs(drawn_counts - ideal) < 1)
        _, pi = audit_store.inclusion_probabilities(project.db.cursor(), "s")
        assert len(pi) == budget
        # Σ over the pool of π = Σ_h N_h · n_h / N_h = n
        assert sum(row["pairs"] * row["inclusion"] for row in rows) == pytest.approx(budget)
        by_stratum = {p.stratum: p for p in pairs}
        for row in rows:
            assert row["inclusion"] == pytest.approx(row["drawn"] / row["pairs"])
        for unit in units(project, "s"):
            assert unit["inclusion"] == pytest.approx(
                next(r["drawn"] / r["pairs"] for r in rows if r["stratum"] == unit["stratum"])
            )
        assert set(by_stratum) == {r["stratum"] for r in rows}


def test_without_a_pilot_the_allocation_is_proportional_then_earlier_audits_are_the_pilot(
    sample: Path, tmp_path: Path
) -> None:
    with Project.open(sample) as project:
        first = project.plan_audit(AuditDrawSpec(LLM, name="p1", budget=28, design="stratified", strata="grade"))
        assert first["allocation"] == "proportional"
        rows = stratum_draws(first)
        assert [r["drawn"] for r in rows] == allocate([r["pairs"] for r in rows], [r["pairs"] for r in rows], 28)
        human = project.engine.evaluator("human").labels
        gold = tmp_path / "p1.qrels"  # graded through the audit (a label written around it is refused)
        gold.write_text(
            "".join(
                f"{qid} 0 {docid} {human[qid].judged[docid]:g}\n"
                for qid, docid, _ in audit_pairs(project.db.cursor(), "p1")
            )
        )
        project.import_audit("p1", gold, assessor="ana")
        second = project.plan_audit(AuditDrawSpec(LLM, name="p2", budget=28, design="stratified", strata="grade"))
        assert second["allocation"] == "neyman" and second["pilot"] == "p1" and second["pilot_pairs"] == 28


def test_allocation_arithmetic() -> None:
    assert allocate([100, 100], [1.0, 3.0], 40) == [10, 30]
    assert list(capped_shares([5, 100], [10.0, 1.0], 20)) == [5.0, 15.0]  # the first stratum is taken whole
    assert allocate([50, 50, 50], [0.0, 0.0, 1.0], 10) == [1, 1, 8]  # never a stratum left at π = 0
    assert allocate([3, 4], [1.0, 1.0], 100) == [3, 4]
    # n0 = (2·1.96·1/0.2)² = 384.1; with N = 1000: 384.1 / 1.3841 = 277.5 → 278
    assert simple_sample_size(1.0, 0.2, 1000, z=1.96) == 278
    # equal strata and spreads: the stratified size is the simple one
    assert stratified_sample_size([500, 500], [1.0, 1.0], 0.2, z=1.96) == 278


def test_planner_sizes_come_from_the_pilot(sample: Path) -> None:
    with Project.open(sample) as project:
        plan = budget_plan(project.engine, LLM, "human", 0.3, measure="nDCG@10", strata="grade")
        rows = {row["design"]: row for row in plan["designs"]}
        _, differences = pilot_differences(project.db.cursor(), LLM, "human")
        sd = float(np.std(list(differences.values()), ddof=1))
        assert rows["pairs"]["sd"] == pytest.approx(sd)
        assert rows["pairs"]["needed"] == simple_sample_size(sd, 0.3, 280)
        assert rows["topics"]["population"] == 10 and 2 <= known(rows["topics"]["needed"]) <= 10
        assert sum(r["neyman"] for r in plan["strata"]) == rows["stratified (grade)"]["needed"]
        assert known(rows["stratified (grade)"]["needed"]) <= known(rows["pairs"]["needed"])


def test_import_takes_the_sample_and_refuses_a_line_outside_it(sample: Path, tmp_path: Path) -> None:
    with Project.open(sample) as project:
        project.plan_audit(AuditDrawSpec(LLM, name="g", budget=5, design="pairs", seed=2))
        sampled = audit_pairs(project.db.cursor(), "g")
        outside = next(
            (q, d)
            for q, d, _ in audit_store.pool(project.db.cursor(), LLM)
            if (q, d) not in {(a, b) for a, b, _ in sampled}
        )
        bad = tmp_path / "bad.qrels"
        bad.write_text(f"{sampled[0][0]} 0 {sampled[0][1]} 2\n{outside[0]} 0 {outside[1]} 1\n")
        with pytest.raises(InputError) as refused:
            project.import_audit("g", bad)
        assert refused.value.line == 2 and "not in audit 'g'" in str(refused.value)
        assert project.audit("g")["done"] == 0
        good = tmp_path / "good.qrels"
        good.write_text("".join(f"{q} 0 {d} 1\n" for q, d, _ in sampled[:3]))
        done = project.import_audit("g", good)
        assert done["labels_written"] == 3 and (done["done"], done["total"]) == (3, 5)
        shown = project.audit("g")
        assert (shown["done"], shown["total"]) == (3, 5)
        assert project.engine.evaluator("g").labels[sampled[0][0]].judged[sampled[0][1]] == 1.0


def test_audit_design_of_imported_human_qrels_is_whole_topics(sample: Path) -> None:
    with Project.open(sample) as project:
        design, pi = audit_design(project.db, "human")
        assert design == "topics" and len(pi) == 10 and set(pi.values()) == {1.0}
        with pytest.raises(UsageError):
            audit_design(project.db, "nothing")


def test_a_name_already_taken_or_a_bad_design_is_refused(sample: Path) -> None:
    with Project.open(sample) as project:
        with pytest.raises(UsageError, match="taken"):
            project.plan_audit(AuditDrawSpec(LLM, name="human", budget=5, design="pairs"))
        with pytest.raises(UsageError, match="--strata"):
            project.plan_audit(AuditDrawSpec(LLM, name="x", budget=5, design="stratified"))
        with pytest.raises(UsageError, match="design"):
            project.plan_audit(AuditDrawSpec(LLM, name="x", budget=5, design="clusters"))
