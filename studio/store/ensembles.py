"""Ensembles (which label sets an ensemble combines, and how) and the spread behind each label."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from studio.store.database import Connection


class SpreadRow(NamedTuple):
    judges: int
    std: float
    low: float
    high: float


def record_ensemble(con: Connection, label_set: int, members: list[str], how: str) -> None:
    """Remember what an ensemble combines, so that it follows its members."""
    con.execute(
        "INSERT OR REPLACE INTO ensembles (label_set_id, members, how) VALUES (?, ?, ?)", [label_set, members, how]
    )


def ensemble(con: Connection, name: str) -> tuple[list[str], str] | None:
    """(members, how) of the ensemble `name`, or None when it is not one."""
    row = con.execute(
        "SELECT e.members, e.how FROM ensembles e JOIN label_sets l USING (label_set_id) WHERE l.name = ?", [name]
    ).fetchone()
    return None if row is None else ([str(m) for m in row[0]], str(row[1]))


def ensembles(con: Connection) -> list[tuple[str, list[str], str]]:
    """(name, members, how) of every ensemble, by name."""
    return [
        (str(n), [str(m) for m in ms], str(h))
        for n, ms, h in con.execute(
            "SELECT l.name, e.members, e.how FROM ensembles e JOIN label_sets l USING (label_set_id) ORDER BY l.name"
        ).fetchall()
    ]


def ensembles_with_member(con: Connection, member: str) -> list[tuple[str, list[str], str]]:
    """(name, members, how) of the ensembles that combine `member`."""
    return [
        (str(n), [str(m) for m in ms], str(h))
        for n, ms, h in con.execute(
            "SELECT l.name, e.members, e.how FROM ensembles e JOIN label_sets l USING (label_set_id)"
            " WHERE list_contains(e.members, ?) ORDER BY l.name",
            [member],
        ).fetchall()
    ]


def pair_grades(con: Connection, names: list[str], qid: str, docid: str) -> list[float]:
    """The current grades of one pair in the named label sets (those that label it), in the order
    of `names`: a mean sums them in the order the whole set's combination does, to the last bit."""
    return [
        float(g)
        for (g,) in con.execute(
            "SELECT grade FROM labels JOIN label_sets USING (label_set_id)"
            " WHERE list_contains(?, name) AND qid = ? AND docid = ? ORDER BY list_position(?, name)",
            [names, qid, docid, names],
        ).fetchall()
    ]


def replace_spreads(con: Connection, label_set: int, spreads: Mapping[tuple[str, str], SpreadRow]) -> None:
    """The whole label set's spreads, replacing what was stored."""
    con.execute("DELETE FROM label_spreads WHERE label_set_id = ?", [label_set])
    if not spreads:
        return
    keys = list(spreads)
    con.execute(
        "INSERT INTO label_spreads SELECT ?, unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::INTEGER[]),"
        " unnest(?::DOUBLE[]), unnest(?::DOUBLE[]), unnest(?::DOUBLE[])",
        [
            label_set,
            [k[0] for k in keys],
            [k[1] for k in keys],
            [spreads[k].judges for k in keys],
            [spreads[k].std for k in keys],
            [spreads[k].low for k in keys],
            [spreads[k].high for k in keys],
        ],
    )


def set_spread(con: Connection, label_set: int, qid: str, docid: str, spread: SpreadRow | None) -> None:
    """One pair's spread (None: the pair has none any more)."""
    con.execute("DELETE FROM label_spreads WHERE label_set_id = ? AND qid = ? AND docid = ?", [label_set, qid, docid])
    if spread is not None:
        con.execute(
            "INSERT INTO label_spreads VALUES (?, ?, ?, ?, ?, ?, ?)",
            [label_set, qid, docid, spread.judges, spread.std, spread.low, spread.high],
        )


def spreads(con: Connection, label_set: int) -> dict[tuple[str, str], SpreadRow]:
    """{(qid, docid): spread} of a label set (empty when it has none)."""
    return {
        (str(q), str(d)): SpreadRow(int(n), float(s), float(lo), float(hi))
        for q, d, n, s, lo, hi in con.execute(
            "SELECT qid, docid, judges, std, low, high FROM label_spreads WHERE label_set_id = ?", [label_set]
        ).fetchall()
    }
