"""Reading label sets as the plain mappings `studio.metrics` works on (runs: `store.rankings`)."""

from __future__ import annotations

from studio.store.database import Connection


def load_labels(con: Connection, label_set: int) -> dict[str, dict[str, float]]:
    """Current labels of a label set as {qid: {docid: grade}}."""
    labels: dict[str, dict[str, float]] = {}
    rows = con.execute("SELECT qid, docid, grade FROM labels WHERE label_set_id = ?", [label_set]).fetchall()
    for qid, docid, grade in rows:
        labels.setdefault(qid, {})[docid] = grade
    return labels
