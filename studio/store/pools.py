"""Which (topic, document) pairs a judge should label, and their texts."""

from __future__ import annotations

from collections.abc import Sequence

from studio.domain.models import ANSWER_PREFIX as ANSWER_PREFIX  # re-exported for the pools' callers
from studio.store.database import Connection


def labelled_pairs(con: Connection, label_set: int) -> list[tuple[str, str]]:
    return [
        tuple(r)
        for r in con.execute(
            "SELECT qid, docid FROM labels WHERE label_set_id = ? ORDER BY qid, docid", [label_set]
        ).fetchall()
    ]


def top_ranked_pairs(con: Connection, depth: int) -> list[tuple[str, str]]:
    """Every document some run ranks in its top `depth` (trec_eval order, as stored) for a topic."""
    return [
        tuple(r)
        for r in con.execute(
            """
        SELECT DISTINCT t.qid, d.docid
        FROM (SELECT topic, unnest(docs[1:?]) AS doc FROM run_rankings) AS r
        JOIN ranking_topics AS t ON t.topic = r.topic
        JOIN ranking_docs AS d ON d.topic = r.topic AND d.doc = r.doc
        ORDER BY t.qid, d.docid
        """,
            [depth],
        ).fetchall()
    ]


def response_pairs(con: Connection) -> list[tuple[str, str]]:
    return [
        (qid, ANSWER_PREFIX + system)
        for qid, system in con.execute("SELECT qid, system FROM responses ORDER BY qid, system").fetchall()
    ]


def topic_texts(con: Connection, qids: Sequence[str]) -> dict[str, str]:
    return dict(con.execute("SELECT qid, text FROM topics WHERE list_contains(?, qid)", [list(set(qids))]).fetchall())


def passage_texts(con: Connection, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Text of each pair's document: a passage (title first, if any) or a generated answer."""
    docids = list({d for _, d in pairs if not d.startswith(ANSWER_PREFIX)})
    documents = {
        docid: (f"{title}\n{text}" if title else text)
        for docid, title, text in con.execute(
            "SELECT docid, title, text FROM documents WHERE list_contains(?, docid)", [docids]
        ).fetchall()
    }
    answers = (
        {
            (qid, ANSWER_PREFIX + system): text
            for qid, system, text in con.execute("SELECT qid, system, text FROM responses").fetchall()
        }
        if any(d.startswith(ANSWER_PREFIX) for _, d in pairs)
        else {}
    )
    texts = {}
    for qid, docid in pairs:
        text = answers.get((qid, docid)) if docid.startswith(ANSWER_PREFIX) else documents.get(docid)
        if text is not None:
            texts[(qid, docid)] = text
    return texts


def pairs_graded_at_least(con: Connection, label_set: int, grade: float) -> list[tuple[str, str]]:
    """The pairs `label_set` grades `grade` or higher, in (qid, docid) order (one query)."""
    return [
        tuple(r)
        for r in con.execute(
            "SELECT qid, docid FROM labels WHERE label_set_id = ? AND grade >= ? ORDER BY qid, docid",
            [label_set, grade],
        ).fetchall()
    ]
