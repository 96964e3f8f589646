"""Reading runs and label sets as the plain arrays `studio.metrics` works on."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from studio.store.database import Connection


def score_as_float(column: str) -> str:
    """SQL for a run score as trec_eval compares it: a C float (single precision).

    DuckDB refuses to cast doubles beyond float range; C turns them into ±infinity.
    """
    return (f"CASE WHEN abs({column}) > 3.4028234663852886e38 THEN sign({column}) * 'inf'::FLOAT"
            f" ELSE {column}::FLOAT END")


class RankedRows(NamedTuple):
    """Every ranked document as numbers: topic, run, document (per topic) and position."""

    runs: list[str]  # by name
    qids: list[str]  # in byte order
    docids: list[list[str]]  # per topic, document number -> docid
    topic: np.ndarray
    run: np.ndarray
    doc: np.ndarray
    position: np.ndarray  # 0-based, in trec_eval's order


def fetch_ranked_rows(con: Connection) -> RankedRows:
    """Number every run row in trec_eval's order: score (as a C float) descending, then docid
    descending.

    DuckDB compares VARCHAR by bytes, as trec_eval's strcmp does, so its window numbering
    is trec_eval's ranking; rows come back sorted by topic.
    """
    runs = [name for (name,) in con.execute("SELECT name FROM runs ORDER BY name").fetchall()]
    qids = sorted(
        (q for (q,) in con.execute("SELECT DISTINCT qid FROM run_rows").fetchall()),
        key=lambda q: q.encode("utf-8"),
    )
    if not runs or not qids:
        empty = np.zeros(0, dtype=np.int64)
        return RankedRows(runs, qids, [[] for _ in qids], empty, empty, empty, empty)
    con.execute("CREATE OR REPLACE TEMP TABLE topic_order AS SELECT unnest(?::VARCHAR[]) AS qid,"
                " generate_subscripts(?::VARCHAR[], 1) - 1 AS topic", [qids, qids])
    con.execute("CREATE OR REPLACE TEMP TABLE run_order AS SELECT unnest(?::VARCHAR[]) AS name,"
                " generate_subscripts(?::VARCHAR[], 1) - 1 AS run", [runs, runs])
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE topic_docs AS
        SELECT t.topic, d.docid, (row_number() OVER (PARTITION BY t.topic ORDER BY d.docid) - 1) AS doc
        FROM (SELECT DISTINCT qid, docid FROM run_rows) d JOIN topic_order t USING (qid)
        """
    )
    arrays = con.execute(
        f"""
        SELECT t.topic, o.run, td.doc,
               (row_number() OVER (PARTITION BY r.run_id, r.qid
                                   ORDER BY {score_as_float('r.score')} DESC, r.docid DESC) - 1)
                   AS pos
        FROM run_rows r
        JOIN runs USING (run_id)
        JOIN run_order o ON o.name = runs.name
        JOIN topic_order t ON t.qid = r.qid
        JOIN topic_docs td ON td.topic = t.topic AND td.docid = r.docid
        ORDER BY t.topic
        """
    ).fetchnumpy()
    vocabulary = con.execute("SELECT topic, docid FROM topic_docs ORDER BY topic, doc").fetchall()
    for table in ("topic_order", "run_order", "topic_docs"):
        con.execute(f"DROP TABLE {table}")

    docids: list[list[str]] = [[] for _ in qids]
    for topic, docid in vocabulary:
        docids[topic].append(docid)
    return RankedRows(
        runs, qids, docids,
        *(np.asarray(arrays[column], dtype=np.int64) for column in ("topic", "run", "doc", "pos")),
    )


def load_labels(con: Connection, label_set: int) -> dict[str, dict[str, float]]:
    """Current labels of a label set as {qid: {docid: grade}}."""
    labels: dict[str, dict[str, float]] = {}
    rows = con.execute(
        "SELECT qid, docid, grade FROM labels WHERE label_set_id = ?", [label_set]
    ).fetchall()
    for qid, docid, grade in rows:
        labels.setdefault(qid, {})[docid] = grade
    return labels
