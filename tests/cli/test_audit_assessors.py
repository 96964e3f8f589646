"""`studio audit assign | pairs --assessor | import --assessor | agreement | adjudicate` on the
sample project: the split (overlap share exact to rounding, seeded, each pair given once or twice),
agreement against scikit-learn and the `krippendorff` package on the pairs two assessors graded,
adjudication changing the gold grade `studio estimate` uses while every assessor's grade stays
recorded, and `studio audit plan` speaking in assessor-hours."""

from __future__ import annotations

import itertools
import json
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb
import krippendorff
import numpy as np
import pytest
from cli.cli_helpers import run_clirunner
from sklearn.metrics import cohen_kappa_score

from studio import Project

LLM = "umbrela-smol"
ASSESSORS = ("alice", "bob", "carol")


def studio(project: Path, home: Path, *args: str) -> Any:
    """The command's JSON output (it must succeed)."""
    result = run_clirunner(["--db", str(project), *args, "--format", "json"], home)
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)


def refused(project: Path, home: Path, *args: str) -> str:
    result = run_clirunner(["--db", str(project), *args], home)
    assert result.code == 2, result.stdout
    return result.stderr


def plan(project: Path, home: Path, name: str, budget: int = 40, seed: int = 3) -> dict[str, Any]:
    drawn = studio(
        project, home, "audit", "plan", "--qrels", LLM, "--budget", str(budget), "--seed", str(seed), "--name", name
    )
    assert isinstance(drawn, dict)
    return drawn


def assign(project: Path, home: Path, audit: str, overlap: float, seed: int = 0) -> dict[str, Any]:
    done = studio(
        project,
        home,
        "audit",
        "assign",
        audit,
        "--assessors",
        ",".join(ASSESSORS),
        "--overlap",
        str(overlap),
        "--seed",
        str(seed),
    )
    assert isinstance(done, dict)
    return done


def given(project: Path, home: Path, audit: str) -> dict[str, list[tuple[str, str]]]:
    found = {}
    for name in ASSESSORS:
        rows = studio(project, home, "audit", "pairs", audit, "--assessor", name)
        found[name] = [(r["qid"], r["docid"]) for r in rows]
    return found


@pytest.mark.parametrize("overlap", [0.0, 0.2, 0.35, 1.0])
def test_assign_shares_exactly_the_overlap_and_gives_each_pair_once_or_twice(
    sample: Path, tmp_path: Path, overlap: float
) -> None:
    plan(sample, tmp_path, "g", budget=37)
    done = assign(sample, tmp_path, "g", overlap, seed=5)
    sample_pairs = [(r["qid"], r["docid"]) for r in studio(sample, tmp_path, "audit", "pairs", "g")]
    counts = Counter(pair for pairs in given(sample, tmp_path, "g").values() for pair in pairs)
    assert set(counts) == set(sample_pairs)
    assert set(counts.values()) <= {1, 2}
    twice = sum(c == 2 for c in counts.values())
    assert twice == round(overlap * 37) == done["shared_pairs"]
    assert abs(twice / 37 - overlap) <= 0.5 / 37
    loads = [row["pairs"] for row in done["per_assessor"]]
    assert max(loads) - min(loads) <= 1  # the work is even


def test_assign_is_seeded(sample: Path, tmp_path: Path) -> None:
    plan(sample, tmp_path, "g")
    assign(sample, tmp_path, "g", 0.3, seed=1)
    first = given(sample, tmp_path, "g")
    assign(sample, tmp_path, "g", 0.3, seed=1)
    assert given(sample, tmp_path, "g") == first
    assign(sample, tmp_path, "g", 0.3, seed=2)
    assert given(sample, tmp_path, "g") != first


def test_assign_refuses_bad_names_and_shares(sample: Path, tmp_path: Path) -> None:
    plan(sample, tmp_path, "g")
    assert "named twice" in refused(sample, tmp_path, "audit", "assign", "g", "--assessors", "alice,alice")
    assert "assessor name" in refused(sample, tmp_path, "audit", "assign", "g", "--assessors", "alice, ,bob")
    assert "at least two" in refused(
        sample, tmp_path, "audit", "assign", "g", "--assessors", "alice", "--overlap", "0.5"
    )
    assert "no audit" in refused(sample, tmp_path, "audit", "assign", "nope", "--assessors", "alice")
    assign(sample, tmp_path, "g", 0.2)
    assert "no pair to 'dave'" in refused(sample, tmp_path, "audit", "pairs", "g", "--assessor", "dave")


def grade_all(project: Path, home: Path, audit: str, seed: int) -> dict[str, dict[tuple[str, str], float]]:
    """Each assessor grades their pairs (random grades 0–3) in a qrels file imported as theirs."""
    rng = np.random.default_rng(seed)
    grades: dict[str, dict[tuple[str, str], float]] = {}
    for name, pairs in given(project, home, audit).items():
        grades[name] = {pair: float(rng.integers(0, 4)) for pair in pairs}
        file = home / f"{name}.qrels"
        file.write_text("".join(f"{q} 0 {d} {int(g)}\n" for (q, d), g in grades[name].items()))
        done = studio(project, home, "audit", "import", audit, str(file), "--assessor", name)
        assert done["labels_written"] == len(pairs)
    return grades


def test_agreement_matches_scikit_learn_and_krippendorff_on_the_overlap(sample: Path, tmp_path: Path) -> None:
    plan(sample, tmp_path, "g", budget=60)
    assign(sample, tmp_path, "g", 0.5, seed=4)
    grades = grade_all(sample, tmp_path, "g", seed=9)
    found = studio(sample, tmp_path, "audit", "agreement", "g")
    assert isinstance(found, dict)
    for couple in found["couples"]:
        a, b = grades[couple["assessor_a"]], grades[couple["assessor_b"]]
        both = sorted(set(a) & set(b))
        assert couple["pairs"] == len(both) > 1
        x, y = [a[p] for p in both], [b[p] for p in both]
        assert couple["kappa"] == pytest.approx(cohen_kappa_score(x, y))
        assert couple["kappa_linear"] == pytest.approx(cohen_kappa_score(x, y, weights="linear"))
        assert couple["kappa_quadratic"] == pytest.approx(cohen_kappa_score(x, y, weights="quadratic"))
    shared = sorted(p for p in set().union(*grades.values()) if sum(p in g for g in grades.values()) > 1)
    data = np.array([[grades[n].get(p, np.nan) for p in shared] for n in sorted(grades)])
    assert found["overlap_pairs"] == len(shared) == 30
    assert found["krippendorff_alpha"] == pytest.approx(krippendorff.alpha(data, level_of_measurement="ordinal"))
    expected = {p for p in shared if len({g[p] for g in grades.values() if p in g}) > 1}
    assert expected and {(c["qid"], c["docid"]) for c in found["conflicts"]} == expected
    for conflict in found["conflicts"]:
        pair = (conflict["qid"], conflict["docid"])
        mine = {n: g[pair] for n, g in grades.items() if pair in g}
        assert conflict["grades"] == mine
        assert conflict["gold"] == pytest.approx(statistics.mean(mine.values()))  # the mean until adjudicated


def gold_grade(project: Path, audit: str, qid: str, docid: str) -> float | None:
    with Project.open(project) as opened:
        topic = opened.engine.evaluator(audit).labels.get(qid)
        return topic.judged.get(docid) if topic is not None else None


def test_adjudication_sets_the_gold_grade_the_estimate_uses_and_keeps_both_grades(sample: Path, tmp_path: Path) -> None:
    plan(sample, tmp_path, "g", budget=40)
    assign(sample, tmp_path, "g", 0.5, seed=4)
    grades = grade_all(sample, tmp_path, "g", seed=2)
    conflict = studio(sample, tmp_path, "audit", "agreement", "g")["conflicts"][0]
    qid, docid = conflict["qid"], conflict["docid"]
    mean = statistics.mean(conflict["grades"].values())
    assert gold_grade(sample, "g", qid, docid) == pytest.approx(mean)
    estimate_args = (
        "estimate",
        "--qrels",
        LLM,
        "--gold",
        "g",
        "--design",
        "pairs",
        "-m",
        "nDCG@10",
        "--estimator",
        "gold",
    )
    before = studio(sample, tmp_path, *estimate_args)
    settled = 3.0 if mean < 1.5 else 0.0
    done = studio(sample, tmp_path, "audit", "adjudicate", "g", qid, docid, str(settled))
    assert done["was_conflict"] is True
    assert gold_grade(sample, "g", qid, docid) == settled
    after = studio(sample, tmp_path, *estimate_args)
    assert after != before
    assert (qid, docid) not in {
        (c["qid"], c["docid"]) for c in studio(sample, tmp_path, "audit", "agreement", "g")["conflicts"]
    }
    # The estimate is the one a single assessor's audit of the same sample with these gold grades
    # gives. One assessor's grades are whole (the assessors' scale): every other conflict is settled
    # first, so that g's gold grades are whole too.
    with Project.open(sample) as opened:
        labels = opened.engine.evaluator("g").labels
        halves = [(q, d, g) for q, topic in labels.items() for d, g in topic.judged.items() if g != int(g)]
    for q, d, g in halves:
        studio(sample, tmp_path, "audit", "adjudicate", "g", q, d, str(float(round(g))))
    after = studio(sample, tmp_path, *estimate_args)
    plan(sample, tmp_path, "h", budget=40)
    with Project.open(sample) as opened:
        gold = opened.engine.evaluator("g").labels
        lines = [f"{q} 0 {d} {g:g}\n" for q, topic in gold.items() for d, g in topic.judged.items()]
    (tmp_path / "gold.qrels").write_text("".join(lines))
    studio(sample, tmp_path, "audit", "import", "h", str(tmp_path / "gold.qrels"))
    same = studio(sample, tmp_path, *estimate_args[:4], "h", *estimate_args[5:])
    assert [r["estimate"] for r in same["runs"]] == [r["estimate"] for r in after["runs"]]
    # Every assessor's grade of the pair stays a label event of the gold set, and the adjudication too.
    with duckdb.connect(str(sample), read_only=True) as con:
        notes = [
            n
            for (n,) in con.execute(
                "SELECT note FROM label_events e JOIN label_sets s USING (label_set_id)"
                " WHERE s.name = 'g' AND qid = ? AND docid = ? ORDER BY event_id",
                [qid, docid],
            ).fetchall()
        ]
    for name, value in conflict["grades"].items():
        assert f"audit g: {name} graded {value:g}" in notes
    assert notes[-1].endswith("adjudicated")
    assert all(grades[n][(qid, docid)] == v for n, v in conflict["grades"].items())


def test_plan_speaks_in_assessor_hours_from_the_projects_timed_decisions(sample: Path, tmp_path: Path) -> None:
    drawn = plan(sample, tmp_path, "g", budget=24)
    assert drawn["seconds_per_decision"] == 30.0
    assert "default" in drawn["seconds_from"]
    assert drawn["assessor_hours"] == pytest.approx(24 * 30 / 3600)
    with Project.open(sample) as project:
        session = project.blind_audit("g", person="alice")
        session.load()
        timed = []
        for grade in (0, 1, 2, 3, 1):
            pair = session.current()
            assert pair is not None
            step = session.decide(grade)
            session.seconds[step] = {0: 12.0, 1: 50.0, 2: 20.0, 3: 8.0}.get(grade, 31.0)
            timed.append(session.seconds[step])
            session.settle(step, session.write(step))
    drawn = plan(sample, tmp_path, "h", budget=24, seed=8)
    assert drawn["seconds_per_decision"] == statistics.median(timed) == 20.0
    assert "median of 5" in drawn["seconds_from"]
    assert drawn["assessor_hours"] == pytest.approx(24 * 20.0 / 3600)
    budget = studio(sample, tmp_path, "audit", "plan", "--qrels", LLM, "--pilot", "human", "--target-width", "0.2")
    for row in budget["designs"]:
        assert row["assessor_hours"] == pytest.approx(row["needed_pairs"] * 20.0 / 3600)


def test_every_couple_of_three_assessors_shares_pairs(sample: Path, tmp_path: Path) -> None:
    plan(sample, tmp_path, "g", budget=30)
    assign(sample, tmp_path, "g", 0.4, seed=0)
    found = given(sample, tmp_path, "g")
    shared = [len(set(found[a]) & set(found[b])) for a, b in itertools.combinations(ASSESSORS, 2)]
    assert sum(shared) == 12 and max(shared) - min(shared) <= 1
