"""On real data: NIST's TREC DL 2020 labels kept on 20 of its 54 topics (people usually label a few)
beside GPT-4's published UMBRELA labels of all 54, with synthetic runs (benchmarks/ppi_coverage.py).
`correlate`, `compare`, `significance` and Review's header give trec_eval's figures (pytrec_eval) on
the 20 topics both label, in both directions; `--topics own` gives each side's own means."""

from __future__ import annotations

import gzip
import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from evaluation_builders import Qrels, write_qrels
from helpers import known
from scipy import stats

from benchmarks.ppi_coverage import COLLECTIONS, DATA, GPT4, published_labels, read_qrels, write_runs
from studio import Project
from studio.domain.frames import TopicChoice, TopicScope
from studio.domain.specs import ComparisonSpec

if not DATA.is_dir() or not published_labels("dl20").is_file():
    pytest.skip(f"TREC DL data or GPT-4's labels not found under {DATA.parent}", allow_module_level=True)

PEOPLE_TOPICS = 20


def read_gz_qrels(path: Path) -> Qrels:
    qrels: Qrels = {}
    for line in gzip.decompress(path.read_bytes()).decode().splitlines():
        qid, _, docid, grade = line.split()
        qrels.setdefault(qid, {})[docid] = int(grade)
    return qrels


def read_runs(paths: list[Path]) -> dict[str, dict[str, dict[str, float]]]:
    runs: dict[str, dict[str, dict[str, float]]] = {}
    for path in paths:
        for line in path.read_text().splitlines():
            qid, _, docid, _, score, name = line.split()
            runs.setdefault(name, {}).setdefault(qid, {})[docid] = float(score)
    return runs


class DL20:
    """The project and the plain dicts the oracle is given."""

    def __init__(self, folder: Path) -> None:
        human = read_qrels(COLLECTIONS["dl20"])
        chosen = sorted(random.Random(20).sample(sorted(human), PEOPLE_TOPICS))
        self.people: Qrels = {qid: human[qid] for qid in chosen}
        self.llm = read_gz_qrels(published_labels("dl20"))
        paths = write_runs(human, folder)
        self.runs = read_runs(paths)
        self.common = sorted(set(self.people) & set(self.llm))
        self.project = Project.open(folder / "dl20.duckdb")
        self.project.import_runs(paths)
        self.project.import_qrels(write_qrels(folder / "people.txt", self.people), name="people")
        self.project.import_qrels(published_labels("dl20"), name=GPT4, kind="llm")

    def qrels(self, name: str) -> Qrels:
        return self.people if name == "people" else self.llm

    def per_topic(self, name: str, measure: str, topics: list[str]) -> dict[str, dict[str, float]]:
        request, key = {"nDCG@10": ("ndcg_cut.10", "ndcg_cut_10"), "AP": ("map", "map")}[measure]
        cut = {qid: docs for qid, docs in self.qrels(name).items() if qid in topics}
        evaluator = pytrec_eval.RelevanceEvaluator(cut, {request}, relevance_level=2 if measure == "AP" else 1)
        return {run: {q: v[key] for q, v in evaluator.evaluate(r).items()} for run, r in self.runs.items()}

    def means(self, name: str, measure: str, topics: list[str]) -> np.ndarray:
        values = self.per_topic(name, measure, topics)
        return np.array([np.mean(list(values[run].values())) for run in self.project.leaderboard(name)])


@pytest.fixture(scope="module")
def dl20(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DL20]:
    collection = DL20(tmp_path_factory.mktemp("dl20-frames"))
    yield collection
    collection.project.close()


@pytest.mark.parametrize(("ref", "qrels"), [("people", GPT4), (GPT4, "people")])
def test_correlate_and_compare_are_trec_evals_on_the_twenty_common_topics(dl20: DL20, ref: str, qrels: str) -> None:
    assert len(dl20.common) == PEOPLE_TOPICS
    result = dl20.project.correlation(ref, qrels, "nDCG@10")
    x, y = dl20.means(ref, "nDCG@10", dl20.common), dl20.means(qrels, "nDCG@10", dl20.common)
    assert [row["ref"] for row in result.get("leaderboard", [])] == pytest.approx(x.tolist(), abs=1e-12)
    assert [row["qrels"] for row in result.get("leaderboard", [])] == pytest.approx(y.tolist(), abs=1e-12)
    assert result["kendall_tau"] == pytest.approx(stats.kendalltau(x, y).statistic)
    assert result["topics"] == PEOPLE_TOPICS
    assert result["frame"] is not None and len(result["frame"]["left_out"]["ref" if ref == GPT4 else "qrels"]) == 34
    [row] = dl20.project.compare(ComparisonSpec(ref, [qrels], "nDCG@10", resamples=200))
    assert row["kendall_tau"] == result["kendall_tau"]
    assert known(row["kendall_tau_low"]) <= known(row["kendall_tau"]) <= known(row["kendall_tau_high"])


def test_own_topics_give_each_sides_own_leaderboard(dl20: DL20) -> None:
    own = dl20.project.correlation("people", GPT4, "nDCG@10", topics=TopicChoice(TopicScope.own))
    everything = sorted(dl20.llm)
    board = own.get("leaderboard", [])
    assert [row["qrels"] for row in board] == pytest.approx(dl20.means(GPT4, "nDCG@10", everything).tolist())
    assert [row["ref"] for row in board] == pytest.approx(dl20.means("people", "nDCG@10", dl20.common).tolist())


def test_significance_and_reviews_header_on_the_common_topics(dl20: DL20) -> None:
    tested = dl20.project.significance(GPT4, "AP(rel=2)", ref="people")
    values = dl20.per_topic(GPT4, "AP", dl20.common)
    for pair in tested["pairs"][:20]:
        a, b = values[pair["run_a"]], values[pair["run_b"]]
        assert pair["topics"] == PEOPLE_TOPICS
        expected = stats.ttest_rel([a[q] for q in dl20.common], [b[q] for q in dl20.common]).pvalue
        assert pair["p_value"] == pytest.approx(expected, rel=1e-9)
    session = dl20.project.review("people", GPT4)
    session.load()
    x, y = dl20.means("people", "nDCG@10", dl20.common), dl20.means(GPT4, "nDCG@10", dl20.common)
    assert session.stats().tau == pytest.approx(stats.kendalltau(x, y).statistic)
