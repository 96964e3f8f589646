"""Each topic's vocabulary row (schema version 21) is its documents in number order, after the
sample's imports and after a second run import that adds documents to topics already ranked; the
evaluator finds a document's number from it without building the topic's index."""

from __future__ import annotations

import gzip
from pathlib import Path

import duckdb

from studio import Project
from studio.store import rankings as ranking_store


def vocabularies(project: Project) -> dict[int, list[str]]:
    con = project.db.cursor()
    topics = [topic for (topic,) in con.execute("SELECT topic FROM ranking_topics ORDER BY topic").fetchall()]
    return {topic: ranking_store.topic_docids(con, topic) for topic in topics}


def from_documents(project: Project) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    for topic, docid in (
        project.db.cursor().execute("SELECT topic, docid FROM ranking_docs ORDER BY topic, doc").fetchall()
    ):
        found.setdefault(topic, []).append(docid)
    return found


def test_vocabularies_follow_every_run_import(sample: Path, tmp_path: Path) -> None:
    with Project.open(sample) as project:
        assert vocabularies(project) == from_documents(project)
        extra = tmp_path / "extra.run"
        extra.write_text(
            "1001 Q0 brand-new-1 1 9.0 extra\n1001 Q0 p1001-01 2 8.0 extra\n1002 Q0 brand-new-2 1 5.0 extra\n"
        )
        project.import_runs([extra])
        found = vocabularies(project)
        assert found == from_documents(project)
        row = project.db.cursor().execute("SELECT topic FROM ranking_topics WHERE qid = '1001'").fetchone()
        assert row is not None and "brand-new-1" in found[row[0]]


def test_a_new_label_finds_its_document_without_the_topic_index(sample: Path) -> None:
    with Project.open(sample) as project:
        evaluator = project.engine.evaluator("umbrela-smol")
        topic = evaluator.rankings.topics["1001"]
        top = {int(d) for d in topic.order[:, :10].ravel() if d >= 0}  # documents some run ranks in its top 10
        unlabelled = next(
            topic.docids[d] for d in sorted(top) if topic.docids[d] not in evaluator.labels["1001"].judged
        )
        project.engine.forget_labels("umbrela-smol")
        evaluator = project.engine.evaluator("umbrela-smol")
        topic = evaluator.rankings.topics["1001"]
        before = project.leaderboard("umbrela-smol")
        project.set_label("umbrela-smol", "1001", unlabelled, 3)
        assert topic._doc_index is None  # one look-up did not index the topic
        assert evaluator.labels["1001"].numbers[unlabelled] == topic.docids.index(unlabelled)
        incremental = project.leaderboard("umbrela-smol")
        project.engine.forget_labels("umbrela-smol")
        assert project.leaderboard("umbrela-smol") == incremental  # as a fresh read of the labels gives
        assert incremental != before  # a top-10 document newly graded 3 moves nDCG@10


def test_a_file_from_before_the_rows_reads_its_documents_as_before(tmp_path: Path) -> None:
    """Schema 20 read as it is (read-only, not upgraded): the documents come from `ranking_docs`."""
    path = tmp_path / "v20.duckdb"
    path.write_bytes(gzip.decompress((Path(__file__).parent / "past_versions" / "v20.duckdb.gz").read_bytes()))
    with duckdb.connect(str(path), read_only=True) as con:
        expected: dict[int, list[str]] = {}
        for topic, docid in con.execute("SELECT topic, docid FROM ranking_docs ORDER BY topic, doc").fetchall():
            expected.setdefault(topic, []).append(docid)
        assert expected
        assert {topic: ranking_store.topic_docids(con, topic) for topic in expected} == expected
