"""How every derived label set was made, read at once: the ensembles, the calibrated sets and the
bank scores, each naming the label sets (and bank) it is made from; and a bank score's record,
written and looked up on its own."""

from __future__ import annotations

from typing import NamedTuple

from studio.store.database import Connection


class EnsembleRecord(NamedTuple):
    name: str
    members: tuple[str, ...]
    how: str


class CalibrationRecord(NamedTuple):
    name: str
    source: str
    gold: str
    method: str
    folds: int
    seed: int
    measure: str


class BankScoreRecord(NamedTuple):
    name: str
    source: str  # the rubric judge's label set, whose newest run's item grades are scored
    bank: str
    score: str
    min_grade: float


DerivationRecord = EnsembleRecord | CalibrationRecord | BankScoreRecord


def derivation_records(con: Connection) -> list[DerivationRecord]:
    """Every derived label set's record, by name."""
    found: list[DerivationRecord] = []
    for name, members, how in con.execute(
        "SELECT l.name, e.members, e.how FROM ensembles e JOIN label_sets l USING (label_set_id)"
    ).fetchall():
        found.append(EnsembleRecord(str(name), tuple(str(m) for m in members), str(how)))
    for name, source, gold, method, folds, seed, measure in con.execute(
        "SELECT l.name, c.source, c.gold, c.method, c.folds, c.seed, c.measure"
        " FROM calibrations c JOIN label_sets l USING (label_set_id)"
    ).fetchall():
        found.append(
            CalibrationRecord(str(name), str(source), str(gold), str(method), int(folds), int(seed), str(measure))
        )
    for name, source, bank, score, min_grade in con.execute(
        "SELECT l.name, d.source, d.bank, d.score, d.min_grade"
        " FROM derivations d JOIN label_sets l USING (label_set_id)"
    ).fetchall():
        found.append(BankScoreRecord(str(name), str(source), str(bank), str(score), float(min_grade)))
    return sorted(found, key=lambda record: record.name)


def record_derivation(con: Connection, label_set: int, source: str, bank: str, score: str, min_grade: float) -> None:
    """Remember how a derived label set was made, so it can follow its source."""
    con.execute(
        "INSERT OR REPLACE INTO derivations (label_set_id, source, bank, score, min_grade) VALUES (?, ?, ?, ?, ?)",
        [label_set, source, bank, score, min_grade],
    )


def derivation(con: Connection, name: str) -> tuple[str, str, str, float] | None:
    """(source, bank, score, min_grade) of the bank-score label set `name`, or None when it is not one."""
    row = con.execute(
        "SELECT d.source, d.bank, d.score, d.min_grade FROM derivations d JOIN label_sets l USING (label_set_id)"
        " WHERE l.name = ?",
        [name],
    ).fetchone()
    return None if row is None else (str(row[0]), str(row[1]), str(row[2]), float(row[3]))


def derivations_of(con: Connection, source: str) -> list[tuple[str, str, str, float]]:
    """(name, bank, score, min_grade) of the label sets derived from `source`."""
    return [
        (str(n), str(b), str(s), float(t))
        for n, b, s, t in con.execute(
            "SELECT l.name, d.bank, d.score, d.min_grade FROM derivations d JOIN label_sets l USING (label_set_id)"
            " WHERE d.source = ? ORDER BY l.name",
            [source],
        ).fetchall()
    ]
