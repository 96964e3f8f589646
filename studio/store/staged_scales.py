"""Staged grades of a study's judgment files (`studio import study`,
`studio import qrels --prompt --method`), before they become label events."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from studio.store.database import Connection


def staged_off_scale(con: Connection, file_index: int, scale: Collection[float]) -> int:
    """How many grades staged for the file lie outside `scale`."""
    row = con.execute(
        "SELECT count(*) FROM staged_labels WHERE file_index = ? AND NOT list_contains(?::DOUBLE[], grade)",
        [file_index, sorted(scale)],
    ).fetchone()
    return int(row[0]) if row else 0


def drop_staged_off_scale(con: Connection, file_index: int, scale: Collection[float]) -> None:
    """Leave the file's grades outside `scale` out of the import."""
    con.execute(
        "DELETE FROM staged_labels WHERE file_index = ? AND NOT list_contains(?::DOUBLE[], grade)",
        [file_index, sorted(scale)],
    )


def staged_count(con: Connection, file_index: int) -> int:
    row = con.execute("SELECT count(*) FROM staged_labels WHERE file_index = ?", [file_index]).fetchone()
    return int(row[0]) if row else 0


def apply_staged_to_new_sets(con: Connection, targets: Sequence[tuple[int, int, int]], batch_id: int) -> int:
    """Each staged file's grades into its new label set, `targets` (file index, label set, event
    source), in one statement: a new set has no earlier grade to replace or remove (a replaced one
    goes through `labels.apply_staged_labels`). Returns the events appended."""
    if not targets:
        return 0
    files, sets, sources = ([target[i] for target in targets] for i in range(3))
    row = con.execute(
        """
        INSERT INTO label_event_rows (event_id, label_set_id, qid, docid, grade, previous, source_id, batch_id)
        SELECT nextval('label_event_ids'), t.set_id, s.qid, s.docid, s.grade, NULL, t.source_id, ?
        FROM staged_labels AS s
        JOIN (SELECT unnest(?::INTEGER[]) AS file_index, unnest(?::INTEGER[]) AS set_id,
                     unnest(?::INTEGER[]) AS source_id) AS t USING (file_index)
        """,
        [batch_id, files, sets, sources],
    ).fetchone()
    return int(row[0]) if row else 0
