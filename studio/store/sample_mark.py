"""The mark of a project the studio built from its bundled sample data.

`studio demo --rebuild` replaces its file with a fresh sample: it may do so only to a sample, never
to a person's own project that a path happens to name. The mark is a batch of its own, written as
the build's last step (a batch is the project's record of what wrote it).
"""

from __future__ import annotations

from studio.store.batches import new_batch
from studio.store.database import Connection

SAMPLE_BATCH = "build sample"


def mark_sample(con: Connection) -> None:
    new_batch(con, SAMPLE_BATCH, "the bundled sample data")


def is_sample(con: Connection) -> bool:
    return con.execute("SELECT 1 FROM batches WHERE command = ? LIMIT 1", [SAMPLE_BATCH]).fetchone() is not None


def writes_since_sample(con: Connection) -> list[tuple[str, int]]:
    """(command, how many times) of what was written into the sample after it was built, in the
    order first written: what a rebuild would drop."""
    rows = con.execute(
        "SELECT command, count(*) FROM batches"
        " WHERE batch_id > (SELECT max(batch_id) FROM batches WHERE command = ?)"
        " GROUP BY command ORDER BY min(batch_id)",
        [SAMPLE_BATCH],
    ).fetchall()
    return [(str(command), int(count)) for command, count in rows]


def label_events_since_sample(con: Connection) -> int:
    """Label events written after the sample was built (imports, judges, edits, undos)."""
    row = con.execute(
        "SELECT count(*) FROM label_events WHERE batch_id > (SELECT max(batch_id) FROM batches WHERE command = ?)",
        [SAMPLE_BATCH],
    ).fetchone()
    return int(row[0]) if row else 0
