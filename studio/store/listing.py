"""Read-only summaries of what a project holds (the `studio list` family and the Overview)."""

from __future__ import annotations

from studio.domain.rows import BankInfo, DocumentRow, LabelSetName, LabelSetRow, ResponseRow, RunInfo, TopicRow
from studio.store.database import Connection, Row, typed_records


def _rows(con: Connection, row: type[Row], sql: str) -> list[Row]:
    return typed_records(con.execute(sql), row)


def list_topics(con: Connection) -> list[TopicRow]:
    """Every topic known from topics, runs or labels; docs = pooled documents, judged = labelled."""
    return _rows(
        con,
        TopicRow,
        """
        WITH ranked AS (  -- the stored rankings' document numbers, turned into docids once each
            SELECT t.qid, d.docid
            FROM (SELECT DISTINCT topic, unnest(docs) AS doc FROM run_rankings) AS r
            JOIN ranking_topics AS t ON t.topic = r.topic
            JOIN ranking_docs AS d ON d.topic = r.topic AND d.doc = r.doc
        ), pooled AS (
            SELECT qid, docid FROM ranked
            UNION SELECT DISTINCT qid, docid FROM labels
        ), judged AS (SELECT DISTINCT qid, docid FROM labels),
        qids AS (SELECT qid FROM topics UNION SELECT DISTINCT qid FROM pooled)
        SELECT q.qid, t.text,
               (SELECT count(*) FROM pooled p WHERE p.qid = q.qid) AS docs,
               (SELECT count(*) FROM judged j WHERE j.qid = q.qid) AS judged
        FROM qids q LEFT JOIN topics t USING (qid)
        ORDER BY q.qid
        """,
    )


def list_documents(con: Connection) -> list[DocumentRow]:
    return _rows(
        con,
        DocumentRow,
        "SELECT docid, title, length(text) AS chars FROM documents ORDER BY docid",
    )


def list_runs(con: Connection) -> list[RunInfo]:
    return _rows(
        con,
        RunInfo,
        """
        SELECT r.name, coalesce(s.topics, 0) AS topics, coalesce(s.rows, 0) AS rows,
               r.source_file AS source
        FROM runs r LEFT JOIN (
            SELECT run_id, count(*) AS topics, sum(len(docs)) AS rows
            FROM run_rankings GROUP BY run_id
        ) s USING (run_id)
        ORDER BY r.name
        """,
    )


def list_label_sets(con: Connection) -> list[LabelSetRow]:
    return _rows(
        con,
        LabelSetRow,
        """
        SELECT ls.name, ls.kind,
               coalesce(l.topics, 0) AS topics, coalesce(l.pairs, 0) AS pairs,
               coalesce(l.relevant, 0) AS relevant, coalesce(e.events, 0) AS events,
               ls.source
        FROM label_sets ls
        LEFT JOIN (
            SELECT label_set_id, count(DISTINCT qid) AS topics, count(*) AS pairs,
                   count(*) FILTER (WHERE grade > 0) AS relevant
            FROM labels GROUP BY label_set_id
        ) l USING (label_set_id)
        LEFT JOIN (
            SELECT label_set_id, count(*) AS events FROM label_events GROUP BY label_set_id
        ) e USING (label_set_id)
        ORDER BY ls.name
        """,
    )


def label_set_names(con: Connection) -> list[LabelSetName]:
    """Every label set's name and kind, by name: the counts of `list_label_sets` read every label
    and event, which choosing a set does not need."""
    return _rows(con, LabelSetName, "SELECT name, kind FROM label_sets ORDER BY name")


def list_banks(con: Connection) -> list[BankInfo]:
    return _rows(
        con,
        BankInfo,
        """
        SELECT b.name, coalesce(i.topics, 0) AS topics, coalesce(i.items, 0) AS items,
               coalesce(i.questions, 0) AS questions, coalesce(i.nuggets, 0) AS nuggets,
               coalesce(i.vital, 0) AS vital, coalesce(i.okay, 0) AS okay, b.source
        FROM banks b LEFT JOIN (
            SELECT bank_id, count(DISTINCT qid) AS topics, count(*) AS items,
                   count(*) FILTER (WHERE kind = 'question') AS questions,
                   count(*) FILTER (WHERE kind = 'nugget') AS nuggets,
                   count(*) FILTER (WHERE importance = 'vital') AS vital,
                   count(*) FILTER (WHERE importance = 'okay') AS okay
            FROM bank_items GROUP BY bank_id
        ) i USING (bank_id)
        ORDER BY b.name
        """,
    )


def list_responses(con: Connection) -> list[ResponseRow]:
    return _rows(
        con,
        ResponseRow,
        """
        SELECT system, count(*) AS topics, sum(length(text)) // count(*) AS mean_chars
        FROM responses GROUP BY system ORDER BY system
        """,
    )


# What `counts` counts, in its order. Each is its own branch of one UNION ALL: DuckDB plans nine
# scalar subqueries of one SELECT (two of them over the event views) about six times slower.
COUNTED = (
    ("topics", "SELECT count(*) FROM topics"),
    ("documents", "SELECT count(*) FROM documents"),
    ("runs", "SELECT count(*) FROM runs"),
    ("run_rows", "SELECT coalesce(sum(len(docs)), 0) FROM run_rankings"),
    ("label_sets", "SELECT count(*) FROM label_sets"),
    ("labels", "SELECT count(*) FROM labels"),
    ("responses", "SELECT count(*) FROM responses"),
    ("banks", "SELECT count(*) FROM banks"),
    ("bank_items", "SELECT count(*) FROM bank_items"),
)


def counts(con: Connection) -> dict[str, int]:
    """How many of each thing the project holds."""
    sql = " UNION ALL ".join(f"SELECT {i} AS k, ({query}) AS n" for i, (_, query) in enumerate(COUNTED))
    found = dict(con.execute(f"SELECT k, n FROM ({sql}) ORDER BY k").fetchall())
    return {key: int(found[i]) for i, (key, _) in enumerate(COUNTED)}
