"""The current labels and bank items replayed from their events, independently of the views that
every reader uses, with the events' own story checked on the way: each label event names the
grade it replaced, an undo restores what the undone edit replaced, and a bank item is edited,
re-weighted or deleted only while it is in the bank."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from studio.domain.check_report import CheckResult

LabelKey = tuple[int, str, str]
LabelEvent = tuple[int, int, str, str, float | None, float | None, str, int | None]


def _grade(value: float | None) -> str:
    return "none" if value is None else f"{value:g}"


def replay_labels(events: Sequence[LabelEvent], sets: dict[int, str], history: CheckResult) -> dict[LabelKey, float]:
    """The current grade of every pair after `events` (in order); problems of the events' story
    go to `history`."""
    state: dict[LabelKey, float | None] = {}
    by_id: dict[int, LabelEvent] = {}
    for event in events:
        event_id, set_id, qid, docid, grade, previous, origin, undoes = event
        key = (set_id, qid, docid)
        before = state.get(key)
        where = f"label event {event_id} ({sets.get(set_id, f'label set {set_id}')} {qid} {docid})"
        if previous != before:
            history.problem(
                f"{where} says it replaced {_grade(previous)}, but the grade before it was {_grade(before)}"
            )
        if origin == "undo" and undoes is not None and undoes in by_id:
            undone = by_id[undoes]
            if undone[1:4] != key:
                history.problem(f"{where} undoes event {undoes}, which is of another pair")
            elif grade != undone[5]:
                history.problem(
                    f"{where} undoes event {undoes} with {_grade(grade)}, not with the "
                    f"{_grade(undone[5])} that event replaced"
                )
        state[key] = grade
        by_id[event_id] = event
    history.checked += len(events)
    return {key: grade for key, grade in state.items() if grade is not None}


def compare_labels(
    view: Sequence[tuple[int, str, str, float]],
    replayed: dict[LabelKey, float],
    sets: dict[int, str],
    result: CheckResult,
) -> None:
    """Problems where the `labels` view and the replay of the events disagree."""
    shown: dict[LabelKey, float] = {}
    for set_id, qid, docid, grade in view:
        key = (set_id, qid, docid)
        if key in shown:
            result.problem(f"{sets.get(set_id, set_id)} {qid} {docid}: the labels view holds the pair twice")
        shown[key] = grade
    for key in sorted(shown.keys() | replayed.keys(), key=repr):
        now, then = shown.get(key), replayed.get(key)
        if now != then:
            name = sets.get(key[0], f"label set {key[0]}")
            result.problem(f"{name} {key[1]} {key[2]}: the labels view says {_grade(now)}, its events {_grade(then)}")
    result.checked += len(replayed)


BankKey = tuple[int, str]
CHANGES_OF_AN_ITEM = ("edit", "weight", "delete")


def replay_bank(
    events: Sequence[tuple[Any, ...]], banks: dict[int, str], history: CheckResult
) -> dict[BankKey, tuple[Any, ...]]:
    """Each bank's current items after `events` (in order): (bank, item) → (qid, kind, text,
    importance, gold answers, position); problems of the events' story go to `history`."""
    state: dict[BankKey, tuple[Any, ...] | None] = {}
    for event_id, bank, item, op, *fields in events:
        key = (bank, item)
        if op in CHANGES_OF_AN_ITEM and state.get(key) is None:
            history.problem(
                f"bank event {event_id}: {op} of item {item}, which was not in bank "
                f"{banks.get(bank, bank)} at that point"
            )
        state[key] = None if op == "delete" else _item(fields)
    history.checked += len(events)
    return {key: item for key, item in state.items() if item is not None}


def _item(fields: Sequence[Any]) -> tuple[Any, ...]:
    qid, kind, text, importance, gold, position = fields
    return (qid, kind, text, importance, tuple(gold or ()), position)


def compare_bank(
    view: Sequence[tuple[Any, ...]],
    replayed: dict[BankKey, tuple[Any, ...]],
    banks: dict[int, str],
    result: CheckResult,
) -> None:
    """Problems where the `bank_items` view and the replay of the bank events disagree."""
    shown: dict[BankKey, tuple[Any, ...]] = {}
    for bank, item, *fields in view:
        if (bank, item) in shown:
            result.problem(f"bank {banks.get(bank, bank)}: the bank_items view holds item {item} twice")
        shown[(bank, item)] = _item(fields)
    for key in sorted(shown.keys() | replayed.keys(), key=repr):
        now, then = shown.get(key), replayed.get(key)
        if now != then:
            name = banks.get(key[0], f"bank {key[0]}")
            state = (
                "missing from the view"
                if now is None
                else "not in the events"
                if then is None
                else "not as its events left it"
            )
            result.problem(f"bank {name}, item {key[1]}: {state}")
    result.checked += len(replayed)
