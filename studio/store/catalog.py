"""Topics, documents and generated answers: the reference data runs and labels point at."""

from __future__ import annotations

from collections.abc import Sequence

from studio.domain.models import Document, Response, Topic
from studio.store.database import Connection
from studio.store.new_names import new_names


def upsert_topics(con: Connection, topics: Sequence[Topic]) -> None:
    """Insert topics; a qid already present takes the new text."""
    con.execute(
        "INSERT OR REPLACE INTO topics SELECT unnest(?), unnest(?)",
        [[t.qid for t in topics], [t.text for t in topics]],
    )


def topic_ids(con: Connection) -> list[str]:
    """Every topic's qid, in qid order."""
    return [qid for (qid,) in con.execute("SELECT qid FROM topics ORDER BY qid").fetchall()]


def topic_count(con: Connection) -> int:
    """How many topics the project holds."""
    row = con.execute("SELECT count(*) FROM topics").fetchone()
    return int(row[0]) if row else 0


def changed_topics(con: Connection, topics: Sequence[Topic]) -> list[str]:
    """The qids of `topics` the project holds with another text."""
    rows = con.execute(
        "SELECT n.qid FROM (SELECT unnest(?) AS qid, unnest(?) AS text) n JOIN topics t USING (qid)"
        " WHERE t.text IS DISTINCT FROM n.text ORDER BY n.qid",
        [[t.qid for t in topics], [t.text for t in topics]],
    ).fetchall()
    return [qid for (qid,) in rows]


def changed_documents(con: Connection, documents: Sequence[Document]) -> list[str]:
    """The docids of `documents` the project holds with another title or text."""
    rows = con.execute(
        "SELECT n.docid FROM (SELECT unnest(?) AS docid, unnest(?) AS title, unnest(?) AS text) n"
        " JOIN documents d USING (docid)"
        " WHERE d.text IS DISTINCT FROM n.text OR d.title IS DISTINCT FROM n.title ORDER BY n.docid",
        [[d.docid for d in documents], [d.title for d in documents], [d.text for d in documents]],
    ).fetchall()
    return [docid for (docid,) in rows]


def add_missing_topics(con: Connection, topics: Sequence[Topic]) -> None:
    """Insert the topics whose qid is not present yet; a topic already present keeps its text."""
    con.execute(
        "INSERT OR IGNORE INTO topics SELECT unnest(?), unnest(?)",
        [[t.qid for t in topics], [t.text for t in topics]],
    )


def upsert_documents(con: Connection, documents: Sequence[Document]) -> None:
    """Insert documents; a docid already present takes the new title and text."""
    con.execute(
        "INSERT OR REPLACE INTO documents SELECT unnest(?), unnest(?), unnest(?)",
        [
            [d.docid for d in documents],
            [d.title for d in documents],
            [d.text for d in documents],
        ],
    )


def response_systems(con: Connection) -> set[str]:
    return {name for (name,) in con.execute("SELECT DISTINCT system FROM responses").fetchall()}


def responses_of(con: Connection, systems: Sequence[str] | None = None) -> list[Response]:
    """The stored answers (of `systems`, or all), by system then topic."""
    rows = con.execute(
        "SELECT qid, system, text, citations FROM responses"
        " WHERE ? IS NULL OR list_contains(?, system) ORDER BY system, qid",
        [None if systems is None else list(systems), None if systems is None else list(systems)],
    ).fetchall()
    return [Response(str(q), str(s), str(t), tuple(str(c) for c in cited)) for q, s, t, cited in rows]


def delete_responses(con: Connection, systems: Sequence[str]) -> None:
    con.execute("DELETE FROM responses WHERE list_contains(?, system)", [list(systems)])


def insert_responses(con: Connection, responses: Sequence[Response], batch_id: int) -> None:
    """Answers of systems not loaded yet: a system whose name looks like a loaded one's is refused."""
    new_names(con, "system", sorted({r.system for r in responses}))
    con.execute(
        "INSERT INTO responses SELECT unnest(?), unnest(?), unnest(?), unnest(?), ?",
        [
            [r.qid for r in responses],
            [r.system for r in responses],
            [r.text for r in responses],
            [list(r.citations) for r in responses],
            batch_id,
        ],
    )
