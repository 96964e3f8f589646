"""Robustness probes: each probe of a judge, and its label of every document before and after
the perturbation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from studio.store.database import Connection, records


def add_probe(con: Connection, label_set: str, method: str, model: str, perturbation: str, ref: str) -> int:
    row = con.execute(
        "INSERT INTO probes (probe_id, label_set, method, model, perturbation, ref)"
        " VALUES (nextval('probe_ids'), ?, ?, ?, ?, ?) RETURNING probe_id",
        [label_set, method, model, perturbation, ref],
    ).fetchone()
    assert row is not None
    return int(row[0])


def add_results(
    con: Connection, probe: int, rows: Sequence[tuple[str, str, float | None, float | None, str, str | None]]
) -> None:
    """(qid, docid, original label, perturbed label, call key, error) per probed document."""
    if rows:
        con.executemany(
            "INSERT INTO probe_results (probe_id, qid, docid, original, perturbed, call_key, error)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [[probe, *row] for row in rows],
        )


def latest_probes(con: Connection) -> list[dict[str, Any]]:
    """The newest probe of every label set, with its rows' labels."""
    probes = records(
        con.execute(
            "SELECT probe_id, label_set, method, model, perturbation, ref FROM probes"
            " WHERE probe_id IN (SELECT max(probe_id) FROM probes GROUP BY label_set) ORDER BY label_set"
        )
    )
    for probe in probes:
        probe["results"] = records(
            con.execute(
                "SELECT qid, docid, original, perturbed, error FROM probe_results WHERE probe_id = ?"
                " ORDER BY qid, docid",
                [probe["probe_id"]],
            )
        )
    return probes
