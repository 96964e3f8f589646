"""Batches: each command's writes (an import, a judge run, a person's edits) under one id, which
every label event points at."""

from __future__ import annotations

from studio.store.database import Connection


def new_batch(con: Connection, command: str, source: str | None) -> int:
    """Record one command's writes as a batch; every event points at its batch."""
    row = con.execute(
        "INSERT INTO batches (batch_id, command, source) VALUES (nextval('batch_ids'), ?, ?) RETURNING batch_id",
        [command, source],
    ).fetchone()
    assert row is not None
    return int(row[0])
