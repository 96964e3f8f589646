"""Each assessor's grades of an audit's pairs, and the gold grade they make.

Every grade an assessor gives is kept (an append-only row, with the seconds it took when the
blind audit timed it), and each one writes the pair's gold grade anew through the one label write
path, as a label event of the audit's gold label set made by that assessor. The gold grade of a
pair is, in this order:

* the adjudicated grade, once someone adjudicated the pair;
* otherwise the mean of the grades its assessors gave (one assessor: that grade).

Before adjudication a conflict (two assessors, two grades) thus counts at the mean of the two:
the pair stays in the gold sample, so the sample keeps its inclusion probabilities. Leaving
conflicts out until adjudicated would drop exactly the hard pairs, a sample no longer random,
and bias the estimate towards the pairs people agree on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from studio.domain.audit_results import Adjudication, Conflict
from studio.domain.errors import UsageError
from studio.domain.numbers import assessor_grade_problem
from studio.domain.rows import LabelEvent, StoredEvent
from studio.services.audit.assignment import audit_record
from studio.services.audit.samples import audit_pairs
from studio.services.writes.label_writes import LabelWrites
from studio.store import Connection
from studio.store import assessors as assessor_store
from studio.store import audits as audit_store
from studio.store.team import local as team_store

GRADE, ADJUDICATION = "grade", "adjudication"

# What a caller writes with a grade, in its transaction (a Review decision's log entry).
AlsoWrite = Callable[[Connection, StoredEvent], object]


@dataclass
class PairGrades:
    """What stands for one pair: each assessor's grade and the adjudicated grade, if any."""

    grades: dict[str, float] = field(default_factory=dict)
    adjudicated: float | None = None

    @property
    def gold(self) -> float | None:
        if self.adjudicated is not None:
            return self.adjudicated
        if not self.grades:
            return None
        return mean_grade(self.grades)

    @property
    def in_conflict(self) -> bool:
        """Two assessors or more gave different grades and nobody has adjudicated yet."""
        return self.adjudicated is None and len(set(self.grades.values())) > 1


def mean_grade(grades: dict[str, float]) -> float:
    """The mean of the assessors' grades (at least one): a pair's gold grade until adjudicated."""
    return sum(grades.values()) / len(grades)


def standing_grades(con: Connection, audit_id: int) -> dict[tuple[str, str], PairGrades]:
    """Per pair, the grades and adjudication that stand now."""
    found: dict[tuple[str, str], PairGrades] = {}
    for row in assessor_store.standing(con, audit_id):
        pair = found.setdefault((str(row["qid"]), str(row["docid"])), PairGrades())
        if row["kind"] == ADJUDICATION:
            pair.adjudicated = float(row["grade"])
        else:
            pair.grades[str(row["assessor"])] = float(row["grade"])
    return found


def _sampled(con: Connection, audit: str, qid: str, docid: str) -> None:
    if not any((q, d) == (qid, docid) for q, d, _ in audit_pairs(con, audit)):
        raise UsageError(f"({qid}, {docid}) is not in audit {audit!r}'s sample")


def _write(
    writes: LabelWrites,
    audit: str,
    qid: str,
    docid: str,
    *,
    assessor: str,
    kind: str,
    grade: float | None,
    seconds: float | None = None,
    also: AlsoWrite | None = None,
) -> LabelEvent:
    """One row of `assessor`'s and the pair's new gold grade, in one transaction."""
    if grade is not None and (off_scale := assessor_grade_problem(grade)) is not None:
        raise UsageError(f"grade {grade:g} {off_scale}")
    con = writes.engine.db.cursor()
    found = audit_record(con, audit)
    audit_id = found["audit_id"]
    now = standing_grades(con, audit_id).get((qid, docid), PairGrades())
    if kind == ADJUDICATION:
        now.adjudicated = grade
    elif grade is None:
        now.grades.pop(assessor, None)
    else:
        now.grades[assessor] = grade
    gold = now.gold

    def record(tx: Connection, event: StoredEvent) -> None:
        event_id = event["event"]
        if gold is not None:
            audit_store.add_grade(tx, audit_id, qid, docid, event_id)
        assessor_store.add_assessment(
            tx, audit_id, qid, docid, assessor, kind=kind, grade=grade, seconds=seconds, label_event=event_id
        )
        if also is not None:
            also(tx, event)

    what = "adjudicated" if kind == ADJUDICATION else "took back" if grade is None else f"graded {grade:g}"
    return writes.edit(audit, qid, docid, gold, note=f"audit {audit}: {assessor} {what}", person=assessor, also=record)


def record_grade(
    writes: LabelWrites,
    audit: str,
    qid: str,
    docid: str,
    assessor: str,
    grade: float | None,
    *,
    seconds: float | None = None,
    also: AlsoWrite | None = None,
) -> LabelEvent:
    """`assessor`'s grade of a pair of the audit (and the seconds it took; None takes their grade
    back): the pair's gold grade follows."""
    return _write(writes, audit, qid, docid, assessor=assessor, kind=GRADE, grade=grade, seconds=seconds, also=also)


def take_back(writes: LabelWrites, audit: str, assessor: str) -> tuple[str, str] | None:
    """Take back `assessor`'s newest grade that stands and was given on a screen (a timed grade:
    never one an import or a team's sync wrote, which may have become the newest meanwhile); the
    gold grade follows. Its pair, or None."""
    con = writes.engine.db.cursor()
    found = audit_record(con, audit)
    rows = [
        r
        for r in assessor_store.standing(con, found["audit_id"])
        if r["assessor"] == assessor and r["kind"] == GRADE and r["seconds"] is not None
    ]
    if not rows:
        return None
    qid, docid = str(rows[-1]["qid"]), str(rows[-1]["docid"])
    _write(writes, audit, qid, docid, assessor=assessor, kind=GRADE, grade=None)
    return qid, docid


def adjudicate(
    writes: LabelWrites,
    audit: str,
    qid: str,
    docid: str,
    grade: float,
    *,
    person: str | None,
    also: AlsoWrite | None = None,
) -> Adjudication:
    """The adjudicated grade of a pair of the audit: it becomes the gold grade; every assessor's
    grade stays recorded. On a team's copy only the coordinator adjudicates (docs/team.md)."""
    con = writes.engine.db.cursor()
    if not writes.pulling():
        refuse_member_adjudication(con, audit)
    _sampled(con, audit, qid, docid)
    before = standing_grades(con, int(audit_record(con, audit)["audit_id"])).get((qid, docid), PairGrades())
    event = _write(
        writes, audit, qid, docid, assessor=person or "adjudicator", kind=ADJUDICATION, grade=grade, also=also
    )
    return Adjudication(
        audit=audit,
        qid=qid,
        docid=docid,
        grade=grade,
        previous=event["previous"],
        was_conflict=before.in_conflict,
        assessors=", ".join(f"{name} {value:g}" for name, value in sorted(before.grades.items())) or None,
        event=event["event"],
    )


def refuse_member_adjudication(con: Connection, audit: str) -> None:
    """A member's copy of a team takes no adjudication of its own: the server takes the
    coordinator's alone, so one kept here would leave this copy's gold grades unlike every other
    copy's, silently. The member's own grade of the pair is what goes up; the coordinator decides."""
    link = team_store.link(con)
    if link is not None and link.member != link.coordinator:
        raise UsageError(
            f"{audit}: on a team's copy only the coordinator ({link.coordinator}) adjudicates, for every copy at"
            f" once; {link.member}'s grade of the pair goes up as an assessor's (the coordinator sees the conflict"
            " in `studio audit agreement`); nothing was written"
        )


def conflicts(con: Connection, audit: str) -> list[Conflict]:
    """The audit's pairs its assessors grade differently, not adjudicated yet, in the audit's order."""
    found = audit_record(con, audit)
    standing = standing_grades(con, found["audit_id"])
    rows = []
    for qid, docid, _ in audit_pairs(con, audit):
        pair = standing.get((qid, docid))
        if pair is not None and pair.in_conflict:  # not adjudicated: the gold grade is the assessors' mean
            grades = dict(sorted(pair.grades.items()))
            rows.append(Conflict(qid=qid, docid=docid, grades=grades, gold=mean_grade(pair.grades)))
    return rows
