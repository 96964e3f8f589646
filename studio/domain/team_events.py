"""The payloads of the events a team shares, as typed values, and the first gate every pulled
event passes: its payload's schema (the keys of its kind, each of its type), its ids and grades
(the rules of a local command), and the plausibility of its time.

What the project must say about an event (does its label set take the write, is its pair in the
audit's sample) is the write path's gate (`studio.services.writes.pulled_gates`); this one needs
nothing but the event.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from studio.domain.names import id_problem, name_problem
from studio.domain.numbers import assessor_grade_problem, grade_problem

MAX_SECONDS = 24 * 3600  # a timed grade longer than a day is no grade's time
MAX_NOTE_CHARACTERS = 10_000
EARLIEST = datetime(2000, 1, 1)
CLOCK_SKEW = timedelta(days=1)  # how far ahead of this copy's clock a member's clock may run


class Refused(ValueError):
    """The event fails a gate; the message says which, as the end of "refused: …"."""


@dataclass(frozen=True)
class LabelPayload:
    """A person's edit of a one-grade label set (grade None: the label removed)."""

    qrels: str
    qid: str
    docid: str
    made_at: str
    grade: float | None
    parent: tuple[str, int] | None  # the shared event that set the pair when it was made
    note: str | None


@dataclass(frozen=True)
class GradePayload:
    """An assessor's grade of an audit pair (None: taken back), with the seconds it took."""

    audit: str
    qid: str
    docid: str
    made_at: str
    grade: float | None
    seconds: float | None


@dataclass(frozen=True)
class AdjudicationPayload:
    audit: str
    qid: str
    docid: str
    made_at: str
    grade: float


@dataclass(frozen=True)
class UndoPayload:
    """The undo of a shared event, named by its global identity, with the grade it left its pair
    at (`edit`; None in an undo written before undos carried it)."""

    member: str
    seq: int
    made_at: str
    edit: LabelPayload | None = (
        None  # the pair's grade after the undo, as a label edit whose parent is the undone event
    )


Payload = LabelPayload | GradePayload | AdjudicationPayload | UndoPayload

_KEYS: dict[str, frozenset[str]] = {
    "label": frozenset({"qrels", "qid", "docid", "made_at", "grade", "parent", "note"}),
    "grade": frozenset({"audit", "qid", "docid", "made_at", "grade", "seconds"}),
    "adjudication": frozenset({"audit", "qid", "docid", "made_at", "grade"}),
    "undo": frozenset({"member", "seq", "made_at"}),
}
# What an undo says of its pair besides (all of them or none: an undo of an earlier studio has none).
_UNDO_EDIT = frozenset({"qrels", "qid", "docid", "grade"})


def parse_payload(kind: str, text: str, now: datetime) -> Payload:
    """The typed payload of an event of `kind`; `Refused` saying why it cannot be one (`now`:
    this copy's clock, against which the event's time must be plausible)."""
    if kind not in _KEYS:
        raise Refused(f"kind {kind!r} is not one this studio applies")
    try:
        data = json.loads(text)
    except ValueError as error:
        raise Refused(f"payload is not JSON ({error})") from None
    if not isinstance(data, dict):
        raise Refused("payload is not a JSON object")
    allowed = _KEYS[kind] | (_UNDO_EDIT if kind == "undo" and _UNDO_EDIT & data.keys() else frozenset())
    missing = sorted(allowed - data.keys())
    unknown = sorted(data.keys() - allowed)
    if missing or unknown:
        said = [f"lacks {', '.join(missing)}"] if missing else []
        said += [f"holds unknown {', '.join(unknown)}"] if unknown else []
        raise Refused(f"payload {' and '.join(said)}")
    made_at = _time(data["made_at"], now)
    if kind == "label":
        return _label(data, made_at)
    if kind == "undo":
        member, seq = _name(data, "member"), _count(data, "seq")
        edit = None
        if "qrels" in data:
            grade = None if data["grade"] is None else _grade(data["grade"])
            edit = LabelPayload(
                _name(data, "qrels"), _id(data, "qid"), _id(data, "docid"), made_at, grade, (member, seq), None
            )
        return UndoPayload(member, seq, made_at, edit)
    pair = (_name(data, "audit"), _id(data, "qid"), _id(data, "docid"), made_at)
    if kind == "adjudication":
        return AdjudicationPayload(*pair, _assessor_grade(data["grade"]))
    grade = None if data["grade"] is None else _assessor_grade(data["grade"])
    return GradePayload(*pair, grade, _seconds(data["seconds"]))


def _label(data: dict[str, object], made_at: str) -> LabelPayload:
    grade = None if data["grade"] is None else _grade(data["grade"])
    parent = data["parent"]
    if parent is not None:
        if not (isinstance(parent, list) and len(parent) == 2):
            raise Refused("parent is not [member, seq]")
        parent = (_name({"parent member": parent[0]}, "parent member"), _count({"parent seq": parent[1]}, "parent seq"))
    note = data["note"]
    if note is not None and (not isinstance(note, str) or len(note) > MAX_NOTE_CHARACTERS):
        raise Refused(f"note is not text of at most {MAX_NOTE_CHARACTERS:,} characters")
    qrels, qid, docid = _name(data, "qrels"), _id(data, "qid"), _id(data, "docid")
    return LabelPayload(qrels, qid, docid, made_at, grade, parent, note)


def _name(data: dict[str, object], key: str) -> str:
    return _text(data, key, name_problem)


def _id(data: dict[str, object], key: str) -> str:
    return _text(data, key, id_problem)


def _text(data: dict[str, object], key: str, problem_of: Callable[[str], str | None]) -> str:
    """`data[key]` as text that `problem_of` finds nothing wrong with."""
    value = data[key]
    if not isinstance(value, str):
        raise Refused(f"{key} is not text ({_shown(value)})")
    problem = problem_of(value)
    if problem is not None:
        raise Refused(f"{key} {value!r} {problem}")
    return value


def _number(value: object, what: str) -> float:
    # bool is an int to Python, never a number to a person.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Refused(f"{what} is not a number ({_shown(value)})")
    return float(value)


def _grade(value: object) -> float:
    grade = _number(value, "grade")
    problem = grade_problem(grade)
    if problem is not None:
        raise Refused(f"grade {value!r} {problem}")
    return grade


def _assessor_grade(value: object) -> float:
    grade = _grade(value)
    problem = assessor_grade_problem(grade)
    if problem is not None:
        raise Refused(f"grade {value!r} {problem}")
    return grade


def _seconds(value: object) -> float | None:
    if value is None:
        return None
    seconds = _number(value, "seconds")
    if not (math.isfinite(seconds) and 0 <= seconds <= MAX_SECONDS):
        raise Refused(f"seconds {value!r} is not a grade's time (0 to {MAX_SECONDS:,} seconds)")
    return seconds


def _count(data: dict[str, object], key: str) -> int:
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**63:
        raise Refused(f"{key} is not a sequence number ({_shown(value)})")
    return value


def _time(value: object, now: datetime) -> str:
    """The event's time as the studio writes it, when it is a real time neither before 2000 nor
    more than a day ahead of this copy's clock."""
    if not isinstance(value, str):
        raise Refused(f"made_at is not a time ({_shown(value)})")
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        raise Refused(f"made_at {value!r} is not a date and time") from None
    if when.tzinfo is not None:
        raise Refused(f"made_at {value!r} has a time zone (the studio writes local times without one)")
    if when < EARLIEST or when > now + CLOCK_SKEW:
        where = "before 2000" if when < EARLIEST else "in the future of this copy's clock"
        raise Refused(f"made_at {value!r} is {where}")
    return when.strftime("%Y-%m-%d %H:%M:%S.%f")


def _shown(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:39] + "…"
