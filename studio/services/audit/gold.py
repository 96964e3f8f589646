"""An audit's gold labels: made elsewhere and imported for the sampled units, and how far the
grading has come (done/total, per stratum)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from studio.domain.audit_results import AuditRecord, GoldImport, GradedBy, GradingProgress
from studio.domain.errors import InputError, UsageError
from studio.domain.models import QrelsRow
from studio.domain.numbers import assessor_grade_problem
from studio.domain.rows import AuditPair, AuditProgress, AuditRow, StratumProgress
from studio.formats.text_input import TREC_LINE_BYTES, Text, read_lines
from studio.formats.trec import parse_qrels, trec_lines
from studio.services.audit.assessments import GRADE, PairGrades, standing_grades
from studio.services.audit.assignment import assessor_pairs, assessors_of
from studio.services.audit.samples import audit_pairs
from studio.store import Connection, Database, new_batch
from studio.store import assessors as assessor_store
from studio.store import audits as audit_store
from studio.store import labels as label_store


def _audit(db: Database, name: str) -> AuditRecord:
    found = audit_store.audit(db.cursor(), name)
    if found is None:
        raise UsageError(f"no audit named {name!r} (see `studio audit list`)")
    return found


def import_gold(db: Database, audit: str, path: Path, *, assessor: str | None = None) -> GoldImport:
    """Gold grades for the audit's pairs from a qrels file, in one transaction; a line naming a pair
    outside the sample (or, with `assessor`, outside that assessor's pairs when the audit has
    assignments) refuses the whole file (with its line), nothing written. With `assessor` the
    grades are that assessor's, and each pair's gold grade follows from all its assessors'."""
    found = _audit(db, audit)
    text = read_lines(path, TREC_LINE_BYTES)
    parsed = parse_qrels(text, str(path))
    refuse_outside(db.cursor(), found, parsed.rows, text, str(path), assessor)
    set_id = label_store.label_set_id(db.cursor(), audit)
    assert set_id is not None
    with db.transaction() as tx:
        target = GoldTarget(found, set_id, str(path), new_batch(tx, "audit import", str(path)))
        if assessor is None:
            written = write_gold_grades(tx, target, parsed.rows)
        else:
            written = write_assessor_grades(tx, target, parsed.rows, assessor)
    whose: GradedBy = {} if assessor is None else {"assessor": assessor}
    return {
        "audit": audit,
        **whose,
        "file": str(path),
        "lines": len(parsed.rows),
        "labels_written": written,
        **progress_totals(db, audit),
    }


def refuse_outside(
    con: Connection, found: AuditRecord, rows: list[QrelsRow], text: Text, source: str, assessor: str | None
) -> None:
    """An input error naming the first line whose pair is outside the audit's sample (or, with
    `assessor` and an audit that assigns pairs, outside that assessor's pairs)."""
    audit = found["name"]
    for row in rows:
        off_scale = assessor_grade_problem(row.grade)
        if off_scale is not None:
            raise InputError(source, _line_of(text, row.qid, row.docid), f"grade {row.grade:g} {off_scale}")
    sample = {(q, d) for q, d, _ in audit_pairs(con, audit)}
    where = f"audit {audit!r}'s sample"
    if assessor is not None and assessors_of(con, found["audit_id"]):
        sample = {(q, d) for q, d, _ in assessor_pairs(con, audit, assessor)}
        where = f"the pairs audit {audit!r} gives {assessor}"
    outside = next((row for row in rows if (row.qid, row.docid) not in sample), None)
    if outside is not None:
        raise InputError(
            source, _line_of(text, outside.qid, outside.docid), f"({outside.qid}, {outside.docid}) is not in {where}"
        )


@dataclass(frozen=True)
class GoldTarget:
    """Where one import's grades go and what its events record."""

    audit: AuditRecord
    set_id: int  # the audit's gold label set
    source: str  # the imported file
    batch: int  # the import's batch of events


def write_gold_grades(tx: Connection, target: GoldTarget, rows: list[QrelsRow]) -> int:
    """Each line's grade as the pair's gold grade, skipping grades the pair already has; the count written."""
    audit = target.audit["name"]
    current = {(q, d): g for q, d, g in audit_store.pool(tx, audit)}
    written = 0
    for row in rows:
        if current.get((row.qid, row.docid)) == row.grade:
            continue
        event = label_store.append_label_event(
            tx,
            target.set_id,
            row.qid,
            row.docid,
            row.grade,
            origin="import",
            source=target.source,
            batch_id=target.batch,
            note=f"audit {audit}",
        )
        audit_store.add_grade(tx, target.audit["audit_id"], row.qid, row.docid, event["event"])
        written += 1
    return written


def write_assessor_grades(tx: Connection, target: GoldTarget, rows: list[QrelsRow], assessor: str) -> int:
    """Each line as the assessor's grade, and the pair's gold grade as all its assessors' grades
    now give it (written even when unchanged: the assessment points at its event); the count written."""
    audit_id = target.audit["audit_id"]
    standing = standing_grades(tx, audit_id)
    for row in rows:
        pair = standing.setdefault((row.qid, row.docid), PairGrades())
        pair.grades[assessor] = row.grade
        event = label_store.append_label_event(
            tx,
            target.set_id,
            row.qid,
            row.docid,
            pair.gold,
            origin="import",
            source=target.source,
            batch_id=target.batch,
            note=f"audit {target.audit['name']}: {assessor} graded {row.grade:g}",
        )
        event_id = event["event"]
        audit_store.add_grade(tx, audit_id, row.qid, row.docid, event_id)
        assessor_store.add_assessment(
            tx,
            audit_id,
            row.qid,
            row.docid,
            assessor,
            kind=GRADE,
            grade=row.grade,
            seconds=None,
            label_event=event_id,
        )
    return len(rows)


def _line_of(text: Text, qid: str, docid: str) -> int | None:
    for number, fields in trec_lines(text):
        if len(fields) >= 3 and fields[0] == qid and fields[2] == docid:
            return number
    return None


def _done(db: Database, audit: AuditRecord) -> set[tuple[str, str]]:
    return audit_store.graded_pairs(db.cursor(), audit["audit_id"], audit["name"])


def progress_totals(db: Database, audit: str) -> GradingProgress:
    found = _audit(db, audit)
    pairs = audit_pairs(db.cursor(), audit)
    done = _done(db, found)
    return GradingProgress(done=sum((q, d) in done for q, d, _ in pairs), total=len(pairs))


def list_audits(db: Database) -> list[AuditRow]:
    """Every audit with its design and how far its sample is graded."""
    rows = []
    for found in audit_store.audits(db.cursor()):
        totals = progress_totals(db, found["name"])
        rows.append(
            AuditRow(
                audit=found["name"],
                qrels=found["label_set"],
                design=found["design"],
                strata=found["strata"],
                units=found["budget"],
                population=found["population"],
                seed=found["seed"],
                done=totals["done"],
                total=totals["total"],
                created=found["created"],
            )
        )
    return rows


def show_audit(db: Database, audit: str) -> AuditProgress:
    """The audit's record with its progress in pairs graded, overall and per stratum."""
    found = _audit(db, audit)
    pairs = audit_pairs(db.cursor(), audit)
    done = _done(db, found)
    units = audit_store.units(db.cursor(), found["audit_id"])
    inclusion = {u["stratum"]: u["inclusion"] for u in units}
    strata: dict[str, StratumProgress] = {}
    for qid, docid, stratum in pairs:
        key = stratum or "all"
        row = strata.setdefault(key, StratumProgress(stratum=key, inclusion=inclusion.get(stratum), done=0, total=0))
        row["total"] += 1
        row["done"] += (qid, docid) in done
    return AuditProgress(
        audit=found["name"],
        qrels=found["label_set"],
        design=found["design"],
        strata=found["strata"],
        allocation=found["allocation"],
        pilot=found["pilot"],
        units=found["budget"],
        population=found["population"],
        seed=found["seed"],
        created=found["created"],
        done=sum(r["done"] for r in strata.values()),
        total=len(pairs),
        per_stratum=[strata[k] for k in sorted(strata)],
    )


def sample_pairs(db: Database, audit: str, *, remaining: bool = False, assessor: str | None = None) -> list[AuditPair]:
    """The audit's pairs in the order it is walked in, each with its stratum, inclusion probability
    and gold grade (None until graded): the list to hand to assessors who grade elsewhere (`remaining`:
    the pairs not graded yet; `assessor`: only the pairs given to that assessor, and `remaining`
    the ones they have not graded)."""
    found = _audit(db, audit)
    con = db.cursor()
    inclusion = {(u["qid"], u["docid"]): u["inclusion"] for u in audit_store.units(con, found["audit_id"])}
    done = _done(db, found)
    gold = {(q, d): g for q, d, g in audit_store.pool(con, audit)}
    walked = audit_pairs(con, audit) if assessor is None else assessor_pairs(con, audit, assessor)
    theirs: set[tuple[str, str]] = set()
    if assessor is not None:
        standing = standing_grades(con, found["audit_id"])
        theirs = {pair for pair, grades in standing.items() if assessor in grades.grades}
    rows: list[AuditPair] = []
    for qid, docid, stratum in walked:
        graded = (qid, docid) in done
        if remaining and ((qid, docid) in theirs if assessor is not None else graded):
            continue
        rows.append(
            AuditPair(
                qid=qid,
                docid=docid,
                stratum=stratum or "all",
                inclusion=inclusion.get((qid, docid), inclusion.get((qid, None))),
                gold=gold.get((qid, docid)) if graded else None,
            )
        )
    return rows
