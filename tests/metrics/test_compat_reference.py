"""Compat against the reference's conventions (tests/compat_reference.py) on fixtures of
the cases where the conventions matter: tied scores (ties go to the ascending docid), scores equal
in single precision but not in double (they do not tie), runs shorter and longer than the 1000
ranks RBO is summed over, negative and zero grades, and documents listed twice in the qrels
(the highest grade counts)."""

from __future__ import annotations

from pathlib import Path

import compat_reference as reference
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from studio.services.project import Project

TOLERANCE = 1e-9


Runs = dict[str, dict[str, dict[str, str]]]  # {name: {qid: {docid: score as written}}}


def project_with(tmp_path: Path, qrels: list[tuple[str, str, float]], runs: Runs) -> Project:
    """A project from qrels rows as written (a repeated pair read with --on-duplicate highest, as
    the reference reads it) and runs {name: {qid: {docid: score as written}}}."""
    qrels_file = tmp_path / "qrels.txt"
    qrels_file.write_text("".join(f"{q} 0 {d} {g:g}\n" for q, d, g in qrels))
    files = []
    for name, topics in runs.items():
        path = tmp_path / f"{name}.txt"
        path.write_text(
            "".join(
                f"{q} Q0 {d} {i} {score} {name}\n"
                for q, docs in topics.items()
                for i, (d, score) in enumerate(docs.items(), start=1)
            )
        )
        files.append(path)
    project = Project.open(tmp_path / "p.duckdb")
    project.import_qrels(qrels_file, name="ref", on_duplicate="highest")
    project.import_runs(files)
    return project


def assert_reference(project: Project, qrels: list[tuple[str, str, float]], runs: Runs, p: float) -> None:
    got = {
        (row["run"], row["topic"]): row["value"]
        for row in project.evaluate("ref", [f"Compat(p={p:g})"], per_topic=True)
        if row["topic"] != "all"
    }
    want = {
        (name, qid): value
        for name, topics in runs.items()
        for qid, value in reference.per_topic(
            qrels, {q: {d: float(s) for d, s in docs.items()} for q, docs in topics.items()}, p
        ).items()
    }
    assert set(got) == set(want)
    for key, value in want.items():
        assert got[key] == pytest.approx(value, abs=TOLERANCE, rel=0), key
    means = {row["run"]: row["value"] for row in project.evaluate("ref", [f"Compat(p={p:g})"])}
    for name in runs:
        topics = [v for (run, _), v in want.items() if run == name]
        assert means[name] == pytest.approx(sum(topics) / len(topics) if topics else 0.0, abs=TOLERANCE)


QRELS: list[tuple[str, str, float]] = [
    ("1", "a", 2),
    ("1", "b", 2),
    ("1", "c", 1),
    ("1", "d", 0),
    ("1", "e", 3),
    ("1", "b", 3),  # b twice: 3 counts
    ("1", "z", 1),
    ("1", "a", 1),
    ("2", "x", 1),
    ("2", "y", -1),
    ("2", "y", 0),
    ("2", "x", -1),  # a, x: the first
    ("3", "n", 0),
]  # topic 3: nothing positive
RUNS = {
    "ties": {
        "1": {"c": "1.0", "a": "1.0", "b": "1.0", "e": "0.5", "q": "0.5"},
        "2": {"y": "2", "x": "2"},
        "3": {"n": "1"},
    },
    # Equal as C floats (trec_eval would tie them and put "b" first), distinct as doubles.
    "near": {"1": {"b": "1.000000001", "a": "1.000000002", "e": "0.3"}, "2": {"x": "-1.5"}},
    "short": {"1": {"z": "9"}},
}


@pytest.mark.parametrize("p", [0.5, 0.9, 0.95])
def test_compat_equals_the_reference_on_ties_near_ties_short_runs_and_repeated_qrels(tmp_path: Path, p: float) -> None:
    with project_with(tmp_path, QRELS, RUNS) as project:
        assert_reference(project, QRELS, RUNS, p)


def test_rbo_is_summed_to_1000_ranks_whatever_the_run_length(tmp_path: Path) -> None:
    """A run of 1,500 documents whose relevant ones sit past rank 1000, and one of 2 documents."""
    qrels = [("1", f"d{i:04d}", 1.0) for i in range(990, 1010)] + [("1", "d0001", 2.0)]
    long_run = {f"d{i:04d}": f"{1500 - i}" for i in range(1500)}
    runs = {"long": {"1": long_run}, "two": {"1": {"d0001": "2", "d0995": "1"}}}
    with project_with(tmp_path, qrels, runs) as project:
        assert_reference(project, qrels, runs, 0.9)


DOCS = [f"p{i}" for i in range(12)]


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(DOCS), st.sampled_from([-1, 0, 1, 2, 3])), min_size=1, max_size=14),
    st.lists(
        st.dictionaries(
            st.sampled_from(DOCS), st.sampled_from(["1", "1.0000000001", "2", "0.5", "-3"]), min_size=1, max_size=12
        ),
        min_size=1,
        max_size=3,
    ),
    st.sampled_from([0.5, 0.9]),
)
def test_compat_equals_the_reference_on_random_tied_runs(
    tmp_path_factory: pytest.TempPathFactory, judged: list[tuple[str, int]], rankings: list[dict[str, str]], p: float
) -> None:
    qrels = [("1", docid, float(grade)) for docid, grade in judged]
    runs = {f"r{i}": {"1": ranking} for i, ranking in enumerate(rankings)}
    with project_with(tmp_path_factory.mktemp("compat"), qrels, runs) as project:
        assert_reference(project, qrels, runs, p)
