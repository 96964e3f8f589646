"""FD@k on the sample project: each run's Fréchet distance between the MiniLM embeddings of its
top k and those of the relevant documents, recomputed here from the sample files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from embedding_helpers import CountingEmbedder, human_qrels, run_names, run_top, write_qrels
from scipy import stats

from studio import Project
from studio.domain.embedding_results import FdLeaderboard
from studio.domain.errors import UsageError
from studio.judges.embedder import Embedder
from studio.metrics.frechet import frechet_distance


def expected_fd(vectors: dict[str, np.ndarray], retrieved: list[str], relevant: list[str]) -> float:
    return frechet_distance(np.array([vectors[d] for d in retrieved]), np.array([vectors[d] for d in relevant]))


def relevant_docids(grades: dict[str, dict[str, float]], threshold: float) -> list[str]:
    return [d for docs in grades.values() for d, g in docs.items() if g >= threshold]


@pytest.fixture(scope="module")
def board(cached_sample_template: Path, embedder: Embedder) -> FdLeaderboard:
    with Project.open(cached_sample_template) as project:
        return project.fd_leaderboard("human", embedder=embedder)


def test_every_run_gets_a_row_best_first(board: FdLeaderboard) -> None:
    rows = board["rows"]
    assert isinstance(rows, list)
    assert sorted(r["run"] for r in rows) == run_names()
    values = [r["value"] for r in rows]
    defined = [v for v in values if isinstance(v, float) and v > 0]
    assert defined == values and defined == sorted(defined)
    assert all(r["documents"] == 100 for r in rows)  # 10 topics × top 10
    assert (board["measure"], board["k"], board["qrels"], board["relevant"]) == ("FD@10", 10, "human", 2.0)
    assert board["relevant_documents"] == len(relevant_docids(human_qrels(), 2))


@pytest.mark.parametrize("run", ["rerank-strong", "adversarial-stuffer"])
def test_a_value_is_the_frechet_distance_of_the_run_s_top_10(
    board: FdLeaderboard,
    document_vectors: dict[str, np.ndarray],
    run: str,
) -> None:
    retrieved = [d for docids in run_top(run, 10).values() for d in docids]
    expected = expected_fd(document_vectors, retrieved, relevant_docids(human_qrels(), 2))
    row = next(r for r in board["rows"] if r["run"] == run)
    assert row["value"] == pytest.approx(expected, rel=1e-6)


def test_kendall_tau_compares_minus_fd_with_the_ndcg_leaderboard(
    cached_sample_template: Path, board: FdLeaderboard
) -> None:
    with Project.open(cached_sample_template) as project:
        ndcg = project.leaderboard("human", "nDCG@10")
    fd = {r["run"]: r["value"] for r in board["rows"] if r["value"] is not None}
    runs = sorted(fd)
    assert len(runs) == len(board["rows"])  # every run has a value
    expected = stats.kendalltau([ndcg[r] for r in runs], [-fd[r] for r in runs]).statistic
    assert board["kendall_tau"] == pytest.approx(expected)
    assert board["ref_measure"] == "nDCG@10"


def test_the_unjudged_variant_counts_only_documents_the_labels_miss(
    cached_sample: Path,
    embedder: Embedder,
    document_vectors: dict[str, np.ndarray],
    tmp_path: Path,
) -> None:
    human = human_qrels()
    # Sparse labels: every other judged document of each topic forgotten.
    sparse = {qid: {d: g for i, (d, g) in enumerate(sorted(docs.items())) if i % 2 == 0} for qid, docs in human.items()}
    counting = CountingEmbedder(embedder)
    with Project.open(cached_sample) as project:
        project.import_qrels(write_qrels(tmp_path / "sparse.txt", sparse), name="sparse")
        result = project.fd_leaderboard("sparse", unjudged_only=True, embedder=counting)
    assert result["measure"] == "FD@10(unjudged)"
    assert counting.calls == 0  # every passage was cached
    relevant = relevant_docids(sparse, 2)
    assert result["relevant_documents"] == len(relevant)
    for row in result["rows"]:
        unjudged = [d for qid, docids in run_top(row["run"], 10).items() for d in docids if d not in sparse[qid]]
        assert row["documents"] == len(unjudged) < 100
        if row["run"] == "dense-good":
            assert row["value"] == pytest.approx(expected_fd(document_vectors, unjudged, relevant), rel=1e-6)


def test_a_run_with_too_few_unjudged_documents_has_no_value(cached_sample_template: Path, embedder: Embedder) -> None:
    with Project.open(cached_sample_template) as project:
        result = project.fd_leaderboard("human", unjudged_only=True, k=5, embedder=embedder)
    human = human_qrels()
    for row in result["rows"]:
        unjudged = [d for qid, docids in run_top(row["run"], 5).items() for d in docids if d not in human[qid]]
        assert row["documents"] == len(unjudged)
        assert (row["value"] is None) == (len(unjudged) < 2)
    assert [r["value"] is None for r in result["rows"]] == sorted(r["value"] is None for r in result["rows"])


def test_the_relevance_threshold(cached_sample: Path, embedder: Embedder, tmp_path: Path) -> None:
    human = human_qrels()
    binary = {qid: {d: float(g >= 2) for d, g in docs.items()} for qid, docs in human.items()}
    with Project.open(cached_sample) as project:
        project.import_qrels(write_qrels(tmp_path / "binary.txt", binary), name="binary")
        on_binary = project.fd_leaderboard("binary", embedder=embedder)
        strict = project.fd_leaderboard("human", relevant=3, k=5, embedder=embedder)
    # A 0/1 label set counts grade 1 as relevant; a graded one grade 2 unless told otherwise.
    assert on_binary["relevant"] == 1.0 and on_binary["relevant_documents"] == len(relevant_docids(human, 2))
    assert strict["relevant_documents"] == len(relevant_docids(human, 3))
    assert strict["measure"] == "FD@5" and all(r["documents"] == 50 for r in strict["rows"])


def test_an_unknown_label_set_is_refused(cached_sample_template: Path, embedder: Embedder) -> None:
    with Project.open(cached_sample_template) as project, pytest.raises(UsageError, match="no label set"):
        project.fd_leaderboard("nobody", embedder=embedder)
