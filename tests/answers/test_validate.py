"""`studio validate --labels SET --ref QRELS`: how a method orders the reference's Best, Acceptable and
Unacceptable passages. On TREC DL 2019 and 2020 with GPT-4's published UMBRELA labels, the three
category pairs' shares equal a computation by hand from the files; a pairwise judge is read from its
verdicts in both orders, an embedding judge through an exemplar drawn from Best outside the pair."""

from __future__ import annotations

import gzip
import json
import os
import random
from itertools import product
from pathlib import Path

import numpy as np
import pytest
from embedding_helpers import HashEmbedder
from helpers import cli, copy_project

from studio import Project
from studio.domain.judging import JudgeConfig

ROOT = Path(__file__).resolve().parents[2]
# The shared TREC DL data beside the repository, as the other tests find it (or where the variable says).
DATA = Path(os.environ.get("STUDIO_SHARED_DATA", ROOT / ".." / "shared" / "data")) / "trec-dl"
GPT4 = ROOT / "tests" / "published" / "umbrela-gpt4"
PAIRS = ("best_vs_unacceptable", "acceptable_vs_unacceptable", "best_vs_acceptable")


def read(path: Path) -> dict[str, dict[str, float]]:
    opener = gzip.open if path.suffix == ".gz" else open
    grades: dict[str, dict[str, float]] = {}
    with opener(path, "rt") as lines:
        for line in lines:
            qid, _, docid, grade = line.split()
            grades.setdefault(qid, {})[docid] = float(grade)
    return grades


def by_hand(
    reference: dict[str, dict[str, float]], method: dict[str, dict[str, float]]
) -> dict[str, tuple[int, int, int, int, int]]:
    """{pair: (agree, tie, disagree, passages of the higher category, of the lower)} counted pair by pair."""
    tallies = {pair: [0, 0, 0] for pair in PAIRS}
    passages: dict[str, tuple[set[tuple[str, str]], set[tuple[str, str]]]] = {pair: (set(), set()) for pair in PAIRS}
    for qid, grades in reference.items():
        top = max(grades.values())
        best = [d for d, g in grades.items() if g == top and top >= 1]
        acceptable = [d for d, g in grades.items() if 1 <= g < top]
        unacceptable = [d for d, g in grades.items() if g < 1]
        groups = {"best": best, "acceptable": acceptable, "unacceptable": unacceptable}
        for pair in PAIRS:
            higher, lower = pair.split("_vs_")
            for h, low in product(groups[higher], groups[lower]):
                if h in method.get(qid, {}) and low in method.get(qid, {}):
                    a, b = method[qid][h], method[qid][low]
                    tallies[pair][0 if a > b else 1 if a == b else 2] += 1
                    passages[pair][0].add((qid, h))
                    passages[pair][1].add((qid, low))
    return {p: (*tallies[p], len(passages[p][0]), len(passages[p][1])) for p in PAIRS}  # type: ignore[misc]


@pytest.mark.parametrize("year", ["19", "20"])
def test_dl_with_gpt4_labels_equals_a_hand_computation(year: str, tmp_path: Path) -> None:
    qrels = DATA / f"qrels.dl{year}-passage.txt"
    labels = GPT4 / f"umbrela-gpt4-dl{year}.txt.gz"
    if not qrels.is_file() or not labels.is_file():
        pytest.skip(f"TREC DL qrels or GPT-4's published labels not found under {DATA}")
    db = tmp_path / "dl.duckdb"
    assert cli(db, "import", "qrels", qrels, "--name", "nist").exit_code == 0
    assert cli(db, "import", "qrels", labels, "--name", "gpt4", "--kind", "llm").exit_code == 0
    done = cli(db, "validate", "--labels", "gpt4", "--ref", "nist", "-f", "json")
    assert done.exit_code == 0, done.stderr
    result = json.loads(done.stdout)
    expected = by_hand(read(qrels), read(labels))
    assert result["how"] == "grades"
    for row in result["rows"]:
        agree, tie, disagree, higher, lower = expected[row["pair"]]
        total = agree + tie + disagree
        assert row["pairs"] == total > 0
        assert (row["agree"], row["tie"], row["disagree"]) == (agree / total, tie / total, disagree / total)
        assert (row["higher_count"], row["lower_count"]) == (higher, lower)
    shares = {row["pair"]: row["agree"] for row in result["rows"]}
    # the paper's finding on DL: the wider the gap between the categories, the more pairs ordered right
    assert shares["best_vs_unacceptable"] > shares["best_vs_acceptable"]


@pytest.fixture
def sample(sample_template: Path, tmp_path: Path) -> Path:
    copied: Path = copy_project(sample_template, tmp_path)
    return copied


def test_a_pairwise_judge_is_read_from_both_orders(sample: Path) -> None:
    with Project.open(sample) as project:
        config = JudgeConfig(
            method="pairwise", backend="simulated", name="pw", kappa=0.5, position_bias=0.3, pool="qrels:human"
        )
        for _ in project.judge(config):
            pass
        result = project.validate("pw", "human")
        answers = {
            (q, a, b): label
            for q, a, b, label in project.db.cursor()
            .execute("SELECT qid, docid, docid_b, label FROM judgments WHERE docid_b IS NOT NULL")
            .fetchall()
        }
        reference = {q: dict(d) for q, d in _labels(project, "human").items()}
    assert result["how"] == "preferences"
    for row in result["rows"]:
        higher, lower = row["higher"], row["lower"]
        counted = [0, 0, 0]
        for qid, grades in reference.items():
            groups = _groups(grades)
            for h, low in product(groups[higher], groups[lower]):
                first, second = answers.get((qid, h, low)), answers.get((qid, low, h))
                if first is not None and second is not None:
                    counted[0 if (first, second) == (1.0, 2.0) else 2 if (first, second) == (2.0, 1.0) else 1] += 1
        total = sum(counted)
        assert row["pairs"] == total > 0
        assert row["tie"] == counted[1] / total and row["agree"] == counted[0] / total


def _labels(project: Project, name: str) -> dict[str, dict[str, float]]:
    rows = project.db.cursor().execute(
        "SELECT qid, docid, grade FROM labels JOIN label_sets USING (label_set_id) WHERE name = ?", [name]
    )
    found: dict[str, dict[str, float]] = {}
    for q, d, g in rows.fetchall():
        found.setdefault(q, {})[d] = g
    return found


def _groups(grades: dict[str, float]) -> dict[str, list[str]]:
    top = max(grades.values())
    return {
        "best": sorted(d for d, g in grades.items() if g == top and top >= 1),
        "acceptable": sorted(d for d, g in grades.items() if 1 <= g < top),
        "unacceptable": sorted(d for d, g in grades.items() if g < 1),
    }


def test_an_embedding_judge_is_read_through_an_exemplar_outside_the_pair(sample: Path) -> None:
    embedder = HashEmbedder()
    with Project.open(sample) as project:
        from studio.services.judging.embeddings import embedding_judge

        embedding_judge(project.db, JudgeConfig(method="embedding", backend="x", name="emb"), embedder)
        result = project.validate("emb", "human", seed=2, embedder=embedder)
        texts = dict(
            project.db.cursor()
            .execute("SELECT docid, coalesce(title || chr(10), '') || text FROM documents")
            .fetchall()
        )
        reference = _labels(project, "human")
    assert (result["how"], result["seed"]) == ("embedding", 2)
    for row in result["rows"]:
        counted, unscored = [0, 0, 0], 0
        for qid, grades in sorted(reference.items()):
            groups = _groups(grades)
            for h, low in product(groups[row["higher"]], groups[row["lower"]]):
                others = [e for e in groups["best"] if e not in (h, low)]
                if not others:
                    unscored += 1
                    continue
                exemplar = embedder.encode([texts[random.Random(f"2/{qid}/{h}/{low}").choice(others)]])[0]
                near = [float(embedder.encode([texts[d]])[0].astype(np.float64) @ exemplar) for d in (h, low)]
                counted[0 if near[0] > near[1] else 1 if near[0] == near[1] else 2] += 1
        assert row["pairs"] == sum(counted)
        assert row["agree"] == pytest.approx(counted[0] / sum(counted))
