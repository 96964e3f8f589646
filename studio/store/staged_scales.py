"""Staged grades checked against a method's scale (a study's judgment files: `studio import study`,
`studio import qrels --prompt --method`), before they become label events."""

from __future__ import annotations

from collections.abc import Collection

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
