"""The facts `studio check` weighs: the event tables and the current state derived from them,
rows whose references lead nowhere, keys held twice, stored rankings, and each judge run beside
its judgments. Read-only; `studio.services.integrity` turns them into findings."""

from __future__ import annotations

from typing import Any, NamedTuple

from studio.store.database import Connection, records
from studio.store.migrations import schema_holds, v21_topic_vocabularies


class Reference(NamedTuple):
    """Rows of `child` whose `columns` must name a row of `parent` (`keys`, in the same order)."""

    child: str
    columns: tuple[str, ...]
    parent: str
    keys: tuple[str, ...]
    where: str = "TRUE"


# Every reference between the project's tables (the schema declares none, so that an import
# writes in bulk): what a row names must exist.
REFERENCES = (
    Reference("label_events", ("label_set_id",), "label_sets", ("label_set_id",)),
    Reference("label_events", ("batch_id",), "batches", ("batch_id",)),
    Reference("label_events", ("undoes",), "label_events", ("event_id",), "undoes IS NOT NULL"),
    Reference("bank_events", ("bank_id",), "banks", ("bank_id",)),
    Reference("bank_events", ("batch_id",), "batches", ("batch_id",)),
    Reference("runs", ("batch_id",), "batches", ("batch_id",)),
    Reference("responses", ("batch_id",), "batches", ("batch_id",)),
    Reference("run_rankings", ("run_id",), "runs", ("run_id",)),
    Reference("run_rankings", ("topic",), "ranking_topics", ("topic",)),
    Reference("ranking_docs", ("topic",), "ranking_topics", ("topic",)),
    Reference("judge_runs", ("label_set_id",), "label_sets", ("label_set_id",)),
    Reference("judgments", ("judge_run_id",), "judge_runs", ("judge_run_id",)),
    Reference("judgments", ("call_key",), "calls", ("key",), "call_key <> ''"),
    Reference("judgments", ("answer_key",), "calls", ("key",), "answer_key IS NOT NULL AND answer_key <> ''"),
    Reference("derivations", ("label_set_id",), "label_sets", ("label_set_id",)),
    Reference("derivations", ("source",), "label_sets", ("name",)),
    Reference("derivations", ("bank",), "banks", ("name",)),
    Reference("review_decisions", ("label_event",), "label_events", ("event_id",), "label_event IS NOT NULL"),
    Reference("review_decisions", ("undoes",), "review_decisions", ("decision_id",), "undoes IS NOT NULL"),
    Reference("review_decisions", ("qrels",), "label_sets", ("name",)),
    Reference("review_decisions", ("ref",), "label_sets", ("name",)),
    Reference("probes", ("label_set",), "label_sets", ("name",)),
    Reference("probe_results", ("probe_id",), "probes", ("probe_id",)),
    Reference("probe_results", ("call_key",), "calls", ("key",), "call_key <> ''"),
)


def broken_references(con: Connection, reference: Reference, limit: int = 5) -> tuple[int, list[tuple[str, int]]]:
    """(rows naming a missing row, up to `limit` of the missing values with their row counts)."""
    match = " AND ".join(f"p.{key} = c.{column}" for column, key in zip(reference.columns, reference.keys, strict=True))
    value = " || ' ' || ".join(f"CAST(c.{column} AS VARCHAR)" for column in reference.columns)
    rows = con.execute(
        f"""
        SELECT {value} AS missing, count(*) AS n FROM {reference.child} c
        WHERE ({reference.where}) AND NOT EXISTS (SELECT 1 FROM {reference.parent} p WHERE {match})
        GROUP BY missing ORDER BY n DESC, missing
        """
    ).fetchall()
    return sum(int(n) for _, n in rows), [(str(missing), int(n)) for missing, n in rows[:limit]]


# Keys a table holds once per row: the call cache's, and those whose lookups assume one row.
UNIQUE_KEYS = (
    ("calls", ("key",)),
    ("embeddings", ("model", "text_hash")),
    ("label_sets", ("name",)),
    ("banks", ("name",)),
    ("runs", ("name",)),
    ("responses", ("qid", "system")),
    ("ranking_topics", ("topic",)),
    ("ranking_topics", ("qid",)),
    ("ranking_docs", ("topic", "doc")),
    ("ranking_docs", ("topic", "docid")),
    ("run_rankings", ("run_id", "topic")),
    ("derivations", ("label_set_id",)),
    ("judgments", ("judge_run_id", "qid", "docid", "docid_b", "item_id", "sample")),
)


def repeated_keys(con: Connection, table: str, columns: tuple[str, ...], limit: int = 5) -> tuple[int, list[str]]:
    """(keys held by more than one row, up to `limit` of them as text)."""
    # IS NOT DISTINCT FROM semantics: GROUP BY puts NULLs together, as one key.
    value = " || ' ' || ".join(f"coalesce(CAST({column} AS VARCHAR), '-')" for column in columns)
    rows = con.execute(
        f"SELECT {value} AS k FROM {table} GROUP BY {', '.join(columns)} HAVING count(*) > 1 ORDER BY k"
    ).fetchall()
    return len(rows), [str(k) for (k,) in rows[:limit]]


def count_rows(con: Connection, table: str) -> int:
    row = con.execute(f"SELECT count(*) FROM {table}").fetchone()
    assert row is not None
    return int(row[0])


# -- events and the current state derived from them --------------------------------------------


def label_events(con: Connection) -> list[tuple[int, int, str, str, float | None, float | None, str, int | None]]:
    """(event, label set, qid, docid, grade, previous, origin, undoes) of every label event, in order."""
    return [
        tuple(row)
        for row in con.execute(
            "SELECT event_id, label_set_id, qid, docid, grade, previous, origin, undoes FROM label_events"
            " ORDER BY event_id"
        ).fetchall()
    ]


def current_labels(con: Connection) -> list[tuple[int, str, str, float]]:
    """(label set, qid, docid, grade) of the `labels` view: what every reader takes as current."""
    return [tuple(row) for row in con.execute("SELECT label_set_id, qid, docid, grade FROM labels").fetchall()]


BANK_ITEM_COLUMNS = ("qid", "kind", "text", "importance", "gold_answers", "position")


def bank_events(con: Connection) -> list[tuple[Any, ...]]:
    """(event, bank, item, op, qid, kind, text, importance, gold answers, position), in order."""
    return [
        tuple(row)
        for row in con.execute(
            f"SELECT event_id, bank_id, item_id, op, {', '.join(BANK_ITEM_COLUMNS)} FROM bank_events ORDER BY event_id"
        ).fetchall()
    ]


def current_bank_items(con: Connection) -> list[tuple[Any, ...]]:
    """(bank, item, qid, kind, text, importance, gold answers, position) of the `bank_items` view."""
    return [
        tuple(row)
        for row in con.execute(f"SELECT bank_id, item_id, {', '.join(BANK_ITEM_COLUMNS)} FROM bank_items").fetchall()
    ]


def review_mismatches(con: Connection, limit: int = 5) -> tuple[int, list[dict[str, Any]]]:
    """Review decisions whose label event is of another label set, pair or grade."""
    rows = records(
        con.execute(
            """
        SELECT d.decision_id AS decision, d.qrels, d.qid, d.docid, d.grade, e.event_id AS event,
               s.name AS event_qrels, e.qid AS event_qid, e.docid AS event_docid, e.grade AS event_grade
        FROM review_decisions d JOIN label_events e ON e.event_id = d.label_event
        LEFT JOIN label_sets s ON s.label_set_id = e.label_set_id
        WHERE s.name IS DISTINCT FROM d.qrels OR e.qid <> d.qid OR e.docid <> d.docid
           OR e.grade IS DISTINCT FROM d.grade
        ORDER BY d.decision_id
        """
        )
    )
    return len(rows), rows[:limit]


# -- stored rankings ---------------------------------------------------------------------------


def ranking_problems(con: Connection, limit: int = 5) -> tuple[int, int, list[str]]:
    """(rankings looked at, rankings or topics found wrong, up to `limit` of them described).

    A ranking's three lists must be aligned and name each document once, by a number its topic
    gave out; a topic numbers its documents 0 … n-1.
    """
    checked = count_rows(con, "run_rankings")
    rows = con.execute(
        """
        WITH sizes AS (SELECT topic, count(*) AS n, count(DISTINCT doc) AS distinct_docs,
                              min(doc) AS low, max(doc) AS high FROM ranking_docs GROUP BY topic)
        SELECT 'run ' || r.run_id || ', topic ' || r.topic || ': ' ||
               CASE WHEN len(r.docs) <> len(r.ranks) OR len(r.docs) <> len(r.scores)
                    THEN 'documents, ranks and scores are not aligned'
                    WHEN len(list_distinct(r.docs)) <> len(r.docs) THEN 'a document is ranked twice'
                    ELSE 'a document number the topic never gave out' END
        FROM run_rankings r LEFT JOIN sizes s USING (topic)
        WHERE len(r.docs) <> len(r.ranks) OR len(r.docs) <> len(r.scores)
           OR len(list_distinct(r.docs)) <> len(r.docs)
           OR (len(r.docs) > 0 AND (s.n IS NULL OR list_min(r.docs) < 0 OR list_max(r.docs) >= s.n))
        UNION ALL
        SELECT 'topic ' || topic || ': its documents are not numbered 0 … ' || (n - 1) FROM sizes
        WHERE distinct_docs <> n OR low <> 0 OR high <> n - 1
        ORDER BY 1
        """
    ).fetchall()
    rows += vocabulary_problems(con)
    return checked, len(rows), [str(text) for (text,) in rows[:limit]]


def vocabulary_problems(con: Connection) -> list[tuple[str]]:
    """Topics whose vocabulary row (version 21) is not their documents in number order."""
    if not schema_holds(con, v21_topic_vocabularies.VERSION):
        return []  # a file from before version 21, read as it is
    rows = con.execute(
        """
        SELECT 'topic ' || topic || ': its vocabulary row is not its documents in number order'
        FROM (SELECT topic, string_agg(docid, chr(10) ORDER BY doc) AS docids FROM ranking_docs GROUP BY topic) AS d
        FULL JOIN ranking_vocabularies AS v USING (topic)
        WHERE v.docids IS DISTINCT FROM d.docids
        ORDER BY 1
        """
    ).fetchall()
    return [(str(text),) for (text,) in rows]


# -- judge runs --------------------------------------------------------------------------------


def judge_run_facts(con: Connection) -> list[dict[str, Any]]:
    """Each judge run's record beside what its judgments hold."""
    return records(
        con.execute(
            """
        SELECT j.judge_run_id AS run, s.name AS label_set, j.method, j.backend,
               j.finished_at IS NOT NULL AS finished, j.stopped_at IS NOT NULL AS stopped,
               j.owner_pid, j.owner_host, j.owner_started, j.pairs, j.calls, j.cache_hits, j.failures,
               coalesce(g.judgments, 0) AS judgments, coalesce(g.unlabelled, 0) AS unlabelled,
               coalesce(g.with_call, 0) AS with_call, coalesce(g.judged_pairs, 0) AS judged_pairs,
               coalesce(g.per_item, 0) AS per_item, coalesce(g.preferences, 0) AS preferences
        FROM judge_runs j LEFT JOIN label_sets s USING (label_set_id)
        LEFT JOIN (
            -- A pair asked K times (judge --samples K) counts once.
            SELECT judge_run_id, count(*) FILTER (WHERE coalesce(sample, 0) = 0) AS judgments,
                   count(*) FILTER (WHERE label IS NULL) AS unlabelled,
                   count(*) FILTER (WHERE call_key <> '') AS with_call,
                   count(DISTINCT (qid, docid)) AS judged_pairs,
                   count(item_id) AS per_item, count(docid_b) AS preferences
            FROM judgments GROUP BY judge_run_id
        ) g USING (judge_run_id)
        ORDER BY j.judge_run_id
        """
        )
    )


def names(con: Connection, table: str) -> dict[int, str]:
    """Id → name of the label sets (`label_sets`) or the banks (`banks`)."""
    key = {"label_sets": "label_set_id", "banks": "bank_id"}[table]
    return {int(i): str(n) for i, n in con.execute(f"SELECT {key}, name FROM {table}").fetchall()}
