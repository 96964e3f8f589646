"""trec_eval's order of every run, stored from the import on, and read back as arrays.

Topics and documents are numbered once (`ranking_topics`, `ranking_docs`: a topic's documents
0 … n-1 in the order they first came); each run's ranking of a topic is one row of
`run_rankings` holding its document numbers in trec_eval's order (score as a C float
descending, ties by docid in descending byte order; the position is the index), with the rank
and the score as written. Opening a project reads these lists: nothing is ranked again, and
no docid becomes a Python string until something asks for a topic's documents.

`run_rows` (qid, docid, rank, score per ranked document) is a view over these tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import duckdb
import numpy as np

from studio.store.database import Connection

# The smallest double C's conversion to float (round to nearest, ties to even) turns into infinity:
# the largest float (2**128 - 2**104) plus half its last place (2**103). A double below it but above
# the largest float, such as 3.4028235e38, rounds down to the largest float.
FLOAT_OVERFLOW = 2.0**128 - 2.0**103


def score_as_float(column: str) -> str:
    """SQL for a run score as trec_eval compares it: a C float (single precision), as `(float)
    atof(score)` gives it.

    DuckDB's cast rounds as C does, but refuses a double that C turns into ±infinity.
    """
    return f"CASE WHEN abs({column}) >= {FLOAT_OVERFLOW!r} THEN sign({column}) * 'inf'::FLOAT ELSE {column}::FLOAT END"


def rank_staged_runs(con: Connection, run_ids: Sequence[tuple[int, int]]) -> None:
    """Number the new topics and documents of the staged rows (`staged_run_rows`: file_index,
    qid, docid, rank, score; `staged_pairs`: their (qid, docid) pairs, each at least once) and
    store each staged file's rankings under its run id."""
    if not run_ids:
        return
    mapping = ", ".join(f"({int(index)}, {int(run_id)})" for index, run_id in run_ids)
    con.execute(
        """
        INSERT INTO ranking_topics
        SELECT (SELECT coalesce(max(topic), -1) FROM ranking_topics) + row_number() OVER (ORDER BY qid), qid
        FROM (SELECT DISTINCT qid FROM staged_pairs) AS n
        WHERE qid NOT IN (SELECT qid FROM ranking_topics)
        """
    )
    # Each staged (qid, docid) once: its topic, its document number (new documents numbered after
    # the topic's last one, in docid order) and `tie`, its place in docid byte order among the
    # topic's staged documents, so that the ranking below breaks score ties on an integer rather
    # than on the docid text (and joins the staged rows once, on the text they hold).
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE staged_docs AS
        SELECT n.qid, n.docid, n.topic, d.doc IS NULL AS new,
               coalesce(d.doc, coalesce(m.last, -1)
                        + row_number() OVER (PARTITION BY n.topic, d.doc IS NULL ORDER BY n.docid)) AS doc,
               row_number() OVER (PARTITION BY n.topic ORDER BY n.docid) AS tie
        FROM (SELECT s.qid, s.docid, t.topic
              FROM (SELECT DISTINCT qid, docid FROM staged_pairs) AS s JOIN ranking_topics AS t USING (qid)) AS n
        LEFT JOIN ranking_docs AS d ON d.topic = n.topic AND d.docid = n.docid
        LEFT JOIN (SELECT topic, max(doc) AS last FROM ranking_docs GROUP BY topic) AS m ON m.topic = n.topic
        """
    )
    con.execute("INSERT INTO ranking_docs SELECT topic, doc, docid FROM staged_docs WHERE new")
    # The vocabulary row of every topic that gained documents, written again whole.
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE grown_topics AS SELECT DISTINCT topic FROM staged_docs WHERE new;
        DELETE FROM ranking_vocabularies WHERE topic IN (SELECT topic FROM grown_topics);
        INSERT INTO ranking_vocabularies
        SELECT topic, string_agg(docid, chr(10) ORDER BY doc) FROM ranking_docs
        WHERE topic IN (SELECT topic FROM grown_topics) GROUP BY topic;
        """
    )
    # One ordered aggregate (a list of structs) sorts each ranking once; the struct is then
    # split into the three stored lists.
    con.execute(
        f"""
        INSERT INTO run_rankings
        SELECT run_id, topic, list_transform(ranked, lambda e: e.doc), list_transform(ranked, lambda e: e.rank),
               list_transform(ranked, lambda e: e.score)
        FROM (SELECT m.run_id, d.topic,
                     list({{'doc': d.doc, 'rank': s.rank, 'score': s.score}}
                          ORDER BY {score_as_float("s.score")} DESC, d.tie DESC) AS ranked
              FROM staged_run_rows AS s
              JOIN (VALUES {mapping}) AS m(file_index, run_id) USING (file_index)
              JOIN staged_docs AS d USING (qid, docid)
              GROUP BY m.run_id, d.topic)
        """
    )
    con.execute("DROP TABLE staged_docs")


def delete_rankings(con: Connection, run_id: int) -> None:
    con.execute("DELETE FROM run_rankings WHERE run_id = ?", [run_id])


def fetch_reference_orders(con: Connection) -> dict[tuple[int, int], np.ndarray]:
    """{(run id, topic key): doc numbers} in the order Clarke's compatibility.py gives a run: score
    as a double descending, ties by docid ascending (DuckDB orders text by bytes, as Python
    orders str by code points: the same order for UTF-8)."""
    stored = con.execute(
        """
        SELECT e.run_id, e.topic, list(e.doc ORDER BY e.score DESC, d.docid ASC) AS docs
        FROM (SELECT run_id, topic, unnest(docs) AS doc, unnest(scores) AS score FROM run_rankings) AS e
        JOIN ranking_docs AS d ON d.topic = e.topic AND d.doc = e.doc
        GROUP BY e.run_id, e.topic
        """
    ).fetchnumpy()
    return {
        (int(r), int(t)): np.asarray(d, dtype=np.intp)
        for r, t, d in zip(stored["run_id"].tolist(), stored["topic"].tolist(), stored["docs"], strict=True)
    }


class StoredRankings(NamedTuple):
    """Every stored ranking, as the arrays `studio.metrics.rankings` builds from."""

    runs: list[str]  # by name
    run_ids: list[int]  # the stored id of each of those runs
    qids: list[str]  # topics some run ranks, in byte order
    topic_keys: list[int]  # the stored number of each of those topics
    sizes: list[int]  # documents numbered per topic
    run: np.ndarray  # per stored ranking: index into `runs`
    topic: np.ndarray  # per stored ranking: index into `qids`
    docs: list[np.ndarray]  # per stored ranking: document numbers in trec_eval's order


def ranked_runs(con: Connection) -> tuple[list[str], list[int]]:
    """Every run's name (in name order) and stored id."""
    named = con.execute("SELECT run_id, name FROM runs ORDER BY name").fetchall()
    return [name for _, name in named], [run_id for run_id, _ in named]


def fetch_rankings(
    con: Connection, qids: Sequence[str] | None = None, runs: tuple[list[str], list[int]] | None = None
) -> StoredRankings:
    """Read the stored rankings of `qids` (None: of every ranked topic) by `runs` (names and ids,
    as `ranked_runs` gave them; None: every run): one list per run and topic, no sorting and no
    docid. A run stored since `runs` were read is left out, so that topics read later line up."""
    names, run_ids = runs if runs is not None else ranked_runs(con)
    run_index = {run_id: i for i, run_id in enumerate(run_ids)}
    # Only the chosen topics are read: a run over a million topics costs nothing where not asked for.
    if qids is None:
        chosen, parameters = "SELECT topic, qid FROM ranking_topics", []
    else:
        chosen, parameters = (
            "SELECT topic, qid FROM ranking_topics WHERE qid IN (SELECT unnest(?::VARCHAR[]))",
            [list(qids)],
        )
    topics = con.execute(
        f"""
        WITH chosen AS ({chosen}),
             ranked AS (SELECT DISTINCT topic FROM run_rankings WHERE topic IN (SELECT topic FROM chosen))
        SELECT c.topic, c.qid, s.size
        FROM chosen AS c
        JOIN (SELECT topic, max(doc) + 1 AS size FROM ranking_docs
              WHERE topic IN (SELECT topic FROM ranked) GROUP BY topic) AS s USING (topic)
        """,
        parameters,
    ).fetchall()
    topics.sort(key=lambda row: row[1].encode("utf-8"))
    topic_index = {key: i for i, (key, _, _) in enumerate(topics)}
    stored = con.execute(
        f"WITH chosen AS ({chosen})"
        " SELECT run_id, topic, docs FROM run_rankings WHERE topic IN (SELECT topic FROM chosen)",
        parameters,
    ).fetchnumpy()
    row_runs, row_topics = stored["run_id"].tolist(), stored["topic"].tolist()
    known = [i for i, r in enumerate(row_runs) if r in run_index]
    run = np.array([run_index[row_runs[i]] for i in known], dtype=np.int64)
    topic = np.array([topic_index[row_topics[i]] for i in known], dtype=np.int64)
    docs = [np.asarray(stored["docs"][i], dtype=np.int32) for i in known]
    return StoredRankings(
        names,
        run_ids,
        [qid for _, qid, _ in topics],
        [key for key, _, _ in topics],
        [int(size) for _, _, size in topics],
        run,
        topic,
        docs,
    )


def topic_docids(con: Connection, topic_key: int) -> list[str]:
    """A topic's docids by document number: its vocabulary row (one short read), or in a file
    from before version 21 read as it is (read-only), its rows of `ranking_docs`."""
    try:
        row = con.execute("SELECT docids FROM ranking_vocabularies WHERE topic = ?", [topic_key]).fetchone()
    except duckdb.CatalogException:
        rows = con.execute("SELECT docid FROM ranking_docs WHERE topic = ? ORDER BY doc", [topic_key]).fetchall()
        return [docid for (docid,) in rows]
    return [] if row is None else str(row[0]).split("\n")


def numbered_labels(con: Connection, label_set: int) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]:
    """A label set's current labels ({qid: {docid: grade}}) and the document number of every
    labelled document some run ranked ({qid: {docid: number}})."""
    rows = con.execute(
        """
        SELECT l.qid, l.docid, l.grade, d.doc
        FROM labels AS l
        LEFT JOIN ranking_topics AS t ON t.qid = l.qid
        LEFT JOIN ranking_docs AS d ON d.topic = t.topic AND d.docid = l.docid
        WHERE l.label_set_id = ?
        """,
        [label_set],
    ).fetchall()
    labels: dict[str, dict[str, float]] = {}
    numbers: dict[str, dict[str, int]] = {}
    for qid, docid, grade, doc in rows:
        labels.setdefault(qid, {})[docid] = grade
        if doc is not None:
            numbers.setdefault(qid, {})[docid] = doc
    return labels, numbers
