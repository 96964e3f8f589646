"""Derived label sets as the follow mechanism sees them: what each is made from (its inputs) and
the order in which a change of an input reaches them.

An input is a label set's grades, a label set's rubric item grades (its newest judge run's), or a
bank's items. A derived set's own grades are an input of the sets made from it in turn, so a
change travels down the chain in dependency order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from studio.store import Connection
from studio.store.derivations import (
    BankScoreRecord,
    CalibrationRecord,
    DerivationRecord,
    EnsembleRecord,
    derivation_records,
)

LABELS, ITEM_GRADES, BANK = "labels", "item grades", "bank"


class Input(NamedTuple):
    """What a derived set is made from: the grades of a label set, its item grades, or a bank."""

    kind: str
    name: str


def labels_of(name: str) -> Input:
    return Input(LABELS, name)


def item_grades_of(name: str) -> Input:
    return Input(ITEM_GRADES, name)


def bank_items(name: str) -> Input:
    return Input(BANK, name)


@dataclass(frozen=True)
class Derivation:
    """One derived label set and how it was made."""

    record: DerivationRecord

    @property
    def name(self) -> str:
        return self.record.name

    @property
    def kind(self) -> str:
        if isinstance(self.record, EnsembleRecord):
            return "ensemble"
        return "calibration" if isinstance(self.record, CalibrationRecord) else "bank score"

    @property
    def inputs(self) -> tuple[Input, ...]:
        record = self.record
        if isinstance(record, EnsembleRecord):
            return tuple(labels_of(member) for member in record.members)
        if isinstance(record, CalibrationRecord):
            return labels_of(record.source), labels_of(record.gold)
        return item_grades_of(record.source), bank_items(record.bank)

    @property
    def pairwise(self) -> bool:
        """Whether each pair's label follows from the same pair of its inputs alone (an ensemble):
        an edit of one pair then needs that pair combined again, not the whole set."""
        return isinstance(self.record, EnsembleRecord)

    def describe(self) -> str:
        record = self.record
        if isinstance(record, EnsembleRecord):
            return f"ensemble: {record.how} of {', '.join(record.members)}"
        if isinstance(record, CalibrationRecord):
            return f"calibration: {record.method} of {record.source} to {record.gold}"
        assert isinstance(record, BankScoreRecord)
        return f"bank score: {record.score} of {record.source}'s item grades with bank {record.bank}"


def derivations(con: Connection) -> list[Derivation]:
    """Every derived label set of the project, by name."""
    return [Derivation(record) for record in derivation_records(con)]


def reached(every: list[Derivation], changed: Iterable[Input]) -> list[Derivation]:
    """The derived sets a change of `changed` reaches, directly or through other derived sets,
    each after the derived sets it is made from."""
    using: dict[Input, list[Derivation]] = {}
    for derivation in every:
        for source in derivation.inputs:
            using.setdefault(source, []).append(derivation)
    found: dict[str, Derivation] = {}
    todo = list(changed)
    while todo:
        for derivation in using.get(todo.pop(), []):
            if derivation.name not in found:
                found[derivation.name] = derivation
                todo.append(labels_of(derivation.name))
    ordered: list[Derivation] = []
    placed: set[str] = set()
    waiting = sorted(found.values(), key=lambda d: d.name)
    while waiting:
        ready = [
            d
            for d in waiting
            if not any(
                s.kind == LABELS and s.name in found and s.name not in placed for s in d.inputs if s.name != d.name
            )
        ]
        # Ensembles refuse circles when made; should one exist anyway, it is followed once, by name.
        step = ready or waiting[:1]
        ordered += step
        placed |= {d.name for d in step}
        waiting = [d for d in waiting if d.name not in placed]
    return ordered
