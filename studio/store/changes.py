"""What other processes wrote to the project since this one last looked."""

from __future__ import annotations

from typing import NamedTuple

from studio.store.database import Connection


class OutsideEvent(NamedTuple):
    event_id: int
    label_set: str
    qid: str
    docid: str
    grade: float | None
    origin: str
    source: str | None
    batch_id: int


def events_after(con: Connection, event_id: int) -> list[OutsideEvent]:
    """Label events newer than `event_id`, oldest first, with their label set's name."""
    rows = con.execute(
        "SELECT e.event_id, s.name, e.qid, e.docid, e.grade, e.origin, e.source, e.batch_id"
        " FROM label_events AS e JOIN label_sets AS s USING (label_set_id)"
        " WHERE e.event_id > ? ORDER BY e.event_id",
        [event_id],
    ).fetchall()
    return [OutsideEvent(*row) for row in rows]


def runs_signature(con: Connection) -> tuple[int, int]:
    """(how many runs, the newest run id): any import or replacement of runs changes it."""
    row = con.execute("SELECT count(*), coalesce(max(run_id), 0) FROM runs").fetchone()
    assert row is not None
    return int(row[0]), int(row[1])
