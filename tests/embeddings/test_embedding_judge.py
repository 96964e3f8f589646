"""The embedding judge on the sample project with the bundled all-MiniLM-L6-v2: each pair's label
is its highest cosine similarity to the topic's best-graded documents, the pair itself left out."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from embedding_helpers import CountingEmbedder, human_qrels, write_qrels
from helpers import scalar

from studio import Project
from studio.domain.errors import UsageError
from studio.domain.judging import JudgeConfig, JudgeSummary
from studio.judges.embedder import Embedder
from studio.services.judging.embeddings import embedding_judge

TOPICS = ["1001", "1003"]

pytestmark = pytest.mark.extra("embeddings")  # the bundled model, from the embeddings extra


def config(**options: Any) -> JudgeConfig:
    options.setdefault("name", "emb")
    options.setdefault("topics", TOPICS)
    return JudgeConfig(method="embedding", backend="sentence-transformers", **options)


def labels(project: Project, label_set: str) -> dict[tuple[str, str], float]:
    rows = (
        project.db.cursor()
        .execute(
            "SELECT qid, docid, grade FROM labels JOIN label_sets USING (label_set_id) WHERE name = ?", [label_set]
        )
        .fetchall()
    )
    return {(q, d): g for q, d, g in rows}


def judgments(project: Project, label_set: str) -> dict[tuple[str, str], tuple[float | None, str | None, str]]:
    """(qid, docid) -> (label, parse_error, call_key) of the label set's newest judge run."""
    rows = (
        project.db.cursor()
        .execute(
            """SELECT qid, docid, label, parse_error, call_key FROM judgments WHERE judge_run_id =
           (SELECT max(judge_run_id) FROM judge_runs JOIN label_sets USING (label_set_id) WHERE name = ?)""",
            [label_set],
        )
        .fetchall()
    )
    return {(q, d): (label, error, key) for q, d, label, error, key in rows}


@pytest.fixture(scope="module")
def judged(
    tmp_path_factory: pytest.TempPathFactory, sample_template: Path, embedder: Embedder
) -> tuple[Path, JudgeSummary, CountingEmbedder]:
    """The sample project after one embedding judge of the human pairs of topics 1001 and 1003."""
    path = tmp_path_factory.mktemp("embedding-judge") / "p.duckdb"
    shutil.copyfile(sample_template, path)
    counting = CountingEmbedder(embedder)
    with Project.open(path) as project:
        summary = embedding_judge(project.db, config(), counting)
    return path, summary, counting


def test_every_pair_of_the_pool_gets_a_cosine(judged: tuple[Path, JudgeSummary, CountingEmbedder]) -> None:
    path, summary, counting = judged
    human = human_qrels()
    pool = {(q, d) for q in TOPICS for d in human[q]}
    assert (summary.pairs, summary.failures, summary.method, summary.backend) == (
        len(pool),
        0,
        "embedding",
        "sentence-transformers",
    )
    assert summary.model == "all-MiniLM-L6-v2"
    # The pool's documents are every exemplar too: each text encoded once, nothing cached before.
    assert summary.calls == len(counting.encoded) == len(set(counting.encoded)) == len(pool)
    assert summary.cache_hits == 0
    with Project.open(path) as project:
        found = labels(project, "emb")
        kinds = {s["name"]: s["kind"] for s in project.label_sets()}
    assert set(found) == pool and kinds["emb"] == "llm"
    assert all(-1.0 <= grade <= 1.0 for grade in found.values())


def test_a_label_is_the_best_cosine_with_the_other_exemplars(
    judged: tuple[Path, JudgeSummary, CountingEmbedder],
    document_vectors: dict[str, np.ndarray],
) -> None:
    path, _, _ = judged
    human = human_qrels()
    vectors = {docid: vector.astype(np.float64) for docid, vector in document_vectors.items()}
    with Project.open(path) as project:
        found = labels(project, "emb")
    for qid in TOPICS:
        docids = sorted(human[qid])
        top = max(human[qid].values())
        exemplars = [d for d in docids if human[qid][d] == top]
        assert len(exemplars) >= 2
        for docid in docids:
            expected = max(float(vectors[docid] @ vectors[e]) for e in exemplars if e != docid)
            assert found[(qid, docid)] == pytest.approx(expected, abs=1e-5), (qid, docid)
        # Left out, an exemplar is not compared with itself: its label is no self-similarity of 1.
        assert all(found[(qid, e)] < 0.999 for e in exemplars)


def test_the_judge_run_is_recorded_without_calls(judged: tuple[Path, JudgeSummary, CountingEmbedder]) -> None:
    path, summary, _ = judged
    with Project.open(path) as project:
        run = next(r for r in project.judge_runs() if r["run"] == summary.judge_run)
        params = json.loads(
            scalar(project.db.cursor(), "SELECT params FROM judge_runs WHERE judge_run_id = ?", [summary.judge_run])
        )
        outcomes = judgments(project, "emb")
    assert (run["method"], run["backend"], run["model"], run["prompt"], run["prompt_hash"]) == (
        "embedding",
        "sentence-transformers",
        "all-MiniLM-L6-v2",
        "embedding",
        "",
    )
    assert (run["pairs"], run["calls"], run["cache_hits"], run["failures"]) == (summary.pairs, summary.calls, 0, 0)
    assert params["ref"] == "human" and "highest reference grade" in params["exemplars"]
    assert params["config"]["method"] == "embedding" and params["config"]["topics"] == TOPICS
    assert len(outcomes) == summary.pairs
    assert {key for _, _, key in outcomes.values()} == {""}  # no model call behind any judgment


def test_a_second_run_encodes_nothing_and_changes_no_label(
    judged: tuple[Path, JudgeSummary, CountingEmbedder],
    embedder: Embedder,
    tmp_path: Path,
) -> None:
    path, first, _ = judged
    copy = tmp_path / "again.duckdb"
    shutil.copyfile(path, copy)
    counting = CountingEmbedder(embedder)
    with Project.open(copy) as project:
        before = labels(project, "emb")
        events = scalar(project.db.cursor(), "SELECT count(*) FROM label_events")
        second = embedding_judge(project.db, config(), counting)
        assert labels(project, "emb") == before
        # Label events only where a grade changed: none did.
        assert scalar(project.db.cursor(), "SELECT count(*) FROM label_events") == events
    assert counting.calls == 0
    assert (second.calls, second.cache_hits, second.failures) == (0, first.calls, 0)
    assert second.judge_run == first.judge_run + 1


def test_a_pair_without_another_exemplar_is_a_recorded_failure(
    sample: Path,
    embedder: Embedder,
    tmp_path: Path,
) -> None:
    human = human_qrels()
    # 1001: one document graded 2, the rest 0 or 1, so its only exemplar is itself;
    # 1003: nothing relevant at all, so no exemplar for anyone.
    only = sorted(d for d, g in human["1001"].items() if g == 3)[0]
    sparse = {
        "1001": {d: (2.0 if d == only else min(g, 1.0)) for d, g in human["1001"].items()},
        "1003": {d: 0.0 for d in human["1003"]},
    }
    with Project.open(sample) as project:
        project.import_qrels(write_qrels(tmp_path / "sparse.txt", sparse), name="sparse")
        summary = embedding_judge(project.db, config(ref="sparse", pool="qrels:sparse"), embedder)
        outcomes = judgments(project, "emb")
        found = labels(project, "emb")
        failures = project.judge_failures("emb", limit=100)
    assert summary.failures == 1 + len(sparse["1003"]) == len(failures)
    assert outcomes[("1001", only)][:2] == (None, "no exemplar other than the document itself")
    for docid in sparse["1003"]:
        label, error, _ = outcomes[("1003", docid)]
        assert label is None and error is not None and "below 1" in error
    # Failures are never a 0: they are not labels at all.
    assert ("1001", only) not in found and not any(q == "1003" for q, _ in found)
    assert {d for q, d in found if q == "1001"} == set(sparse["1001"]) - {only}


def test_generated_answers_are_compared_with_the_passage_exemplars(sample: Path, embedder: Embedder) -> None:
    with Project.open(sample) as project:
        summary = embedding_judge(project.db, config(pool="responses", topics=["1001"], name="answers"), embedder)
        found = labels(project, "answers")
    assert summary.pairs == len(found) >= 2 and summary.failures == 0
    assert all(docid.startswith("answer/") and -1.0 <= grade <= 1.0 for (_, docid), grade in found.items())


def test_a_judge_never_writes_into_the_human_set(sample: Path) -> None:
    counting = CountingEmbedder(Embedder())
    with Project.open(sample) as project:
        before = labels(project, "human")
        with pytest.raises(UsageError, match="human labels"):
            embedding_judge(project.db, config(name="human"), counting)
        assert labels(project, "human") == before
    assert counting.calls == 0


def test_an_unknown_reference_is_refused(sample: Path) -> None:
    with Project.open(sample) as project, pytest.raises(UsageError, match="no reference label set"):
        embedding_judge(project.db, config(ref="nobody"), CountingEmbedder(Embedder()))
