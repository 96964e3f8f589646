"""Each assessor's grades of a campaign's pairs, and the label they make.

Every grade is kept (an append-only row with the assessor, the condition, the seconds it took and
whether the LLM's grade was on screen) and writes the pair's label in the campaign's label set anew
through the one label write path, as an audited edit made by that assessor (undoable). The label
of a pair is the mean of the grades its assessors gave (one assessor: that grade), as an audit's
gold grade is before adjudication (`studio.services.audit.assessments.PairGrades`).
"""

from __future__ import annotations

from pathlib import Path

from studio.domain.campaigns import (
    RECALL_SUFFIX,
    CampaignGradeWritten,
    CampaignImport,
    CampaignRecord,
    PairRole,
    PoolPair,
)
from studio.domain.errors import InputError, UsageError
from studio.domain.models import QrelsRow
from studio.domain.numbers import assessor_grade_problem
from studio.domain.rows import LabelEvent, StoredEvent
from studio.formats.text_input import TREC_LINE_BYTES, Text, read_lines
from studio.formats.trec import parse_qrels, trec_lines
from studio.services.audit.assessments import PairGrades
from studio.services.writes.label_writes import LabelWrites
from studio.store import Connection, Database, new_batch
from studio.store import campaigns as campaign_store
from studio.store import labels as label_store
from studio.store.campaigns import ImportedGrade


def campaign_record(con: Connection, name: str) -> CampaignRecord:
    found = campaign_store.campaign(con, name)
    if found is None:
        raise UsageError(f"no campaign named {name!r} (see `studio assess list`)")
    return found


def standing_grades(con: Connection, campaign_id: int) -> dict[tuple[str, str], PairGrades]:
    """Per pair, the grade each assessor gave that stands."""
    found: dict[tuple[str, str], PairGrades] = {}
    for row in campaign_store.standing(con, campaign_id):
        found.setdefault((row["qid"], row["docid"]), PairGrades()).grades[row["assessor"]] = float(row["grade"])
    return found


def shown_pairs(con: Connection, found: CampaignRecord) -> list[PoolPair]:
    """The pairs put before people, in walk order: each condition's, and the recall sample's (shown
    as manual pairs are)."""
    return [pair for pair in campaign_store.pairs(con, found["campaign_id"]) if pair.shown]


def label_set_of(campaign: str, pair: PoolPair) -> str:
    """Where a grade of `pair` goes: the campaign's label set, or its recall sample's."""
    return f"{campaign}{RECALL_SUFFIX}" if pair.role is PairRole.recall else campaign


def given_to(con: Connection, found: CampaignRecord, assessor: str) -> set[tuple[str, str]] | None:
    """The pairs given to `assessor` (None: the campaign gives pairs to nobody, anyone grades any);
    a UsageError when the campaign has assessors and `assessor` is not one of them."""
    rows = campaign_store.assignments(con, found["campaign_id"])
    if not rows:
        return None
    given = {(q, d) for q, d, a in rows if a == assessor}
    if not given:
        names = ", ".join(sorted({a for _, _, a in rows}))
        raise UsageError(f"campaign {found['name']!r} gives no pair to {assessor!r}; its assessors: {names}")
    return given


def record_grade(
    writes: LabelWrites,
    campaign: str,
    pair: PoolPair,
    assessor: str,
    grade: float | None,
    *,
    seconds: float | None = None,
    ungraded: bool = False,
) -> LabelEvent:
    """`assessor`'s grade of a shown pair (None takes it back) and the pair's label that follows,
    in one transaction. `ungraded`: the caller saw no grade of `assessor` standing for the pair; one
    written since (an import, another studio) is not overwritten but refused, with it named."""
    if grade is not None and (off_scale := assessor_grade_problem(grade)) is not None:
        raise UsageError(f"grade {grade:g} {off_scale}")
    con = writes.engine.db.cursor()
    found = campaign_record(con, campaign)
    campaign_id = found["campaign_id"]
    now = standing_grades(con, campaign_id).get((pair.qid, pair.docid), PairGrades())
    if ungraded and (newer := now.grades.get(assessor)) is not None:
        raise UsageError(
            f"{pair.qid} {pair.docid} was graded {newer:g} by {assessor} elsewhere meanwhile (an import or "
            "another studio): that grade stands, yours was not written over it"
        )
    if grade is None:
        now.grades.pop(assessor, None)
    else:
        now.grades[assessor] = grade

    def record(tx: Connection, event: StoredEvent) -> None:
        campaign_store.add_grade(
            tx,
            campaign_id,
            pair.qid,
            pair.docid,
            assessor,
            condition=str(pair.condition),
            grade=grade,
            seconds=seconds,
            llm_visible=pair.condition.shows_llm,
            label_event=int(str(event["event"])),
        )

    what = "took back" if grade is None else f"graded {grade:g}"
    note = f"campaign {campaign} ({pair.condition}): {assessor} {what}"
    target = label_set_of(campaign, pair)
    return writes.edit(target, pair.qid, pair.docid, now.gold, note=note, person=assessor, also=record)


def take_back(writes: LabelWrites, campaign: str, assessor: str) -> CampaignGradeWritten | None:
    """Take back `assessor`'s newest grade that stands and was given on a screen (a timed grade:
    never one an import wrote, which a concurrent `assess import` may have made the newest); the
    label follows. None when there is none."""
    con = writes.engine.db.cursor()
    found = campaign_record(con, campaign)
    standing = campaign_store.standing(con, found["campaign_id"])
    theirs = [r for r in standing if r["assessor"] == assessor and r["seconds"] is not None]
    if not theirs:
        return None
    last = theirs[-1]
    pair = next(p for p in shown_pairs(con, found) if (p.qid, p.docid) == (last["qid"], last["docid"]))
    record_grade(writes, campaign, pair, assessor, None)
    return grade_written(campaign, pair, assessor, None, earlier=float(last["grade"]))


def grade_written(
    campaign: str, pair: PoolPair, assessor: str, grade: float | None, *, earlier: float | None = None
) -> CampaignGradeWritten:
    """What a walk tells of a grade it wrote (None: taken back; `earlier`: the grade before)."""
    return CampaignGradeWritten(
        campaign=campaign,
        qid=pair.qid,
        docid=pair.docid,
        assessor=assessor,
        condition=str(pair.condition),
        grade=grade,
        llm_visible=pair.condition.shows_llm,
        earlier=earlier,
    )


def import_grades(db: Database, campaign: str, path: Path, *, assessor: str) -> CampaignImport:
    """`assessor`'s grades of the campaign's shown pairs from a qrels file, in one transaction; a
    line naming a pair the campaign does not show (or, when it gives pairs to assessors, one it does
    not give `assessor`) refuses the whole file, with its line, nothing written."""
    con = db.cursor()
    found = campaign_record(con, campaign)
    text = read_lines(path, TREC_LINE_BYTES)
    parsed = parse_qrels(text, str(path))
    shown = {(p.qid, p.docid): p for p in shown_pairs(con, found)}
    given = given_to(con, found, assessor)
    for row in parsed.rows:
        key = (row.qid, row.docid)
        off_scale = assessor_grade_problem(row.grade)
        if off_scale is not None:
            raise InputError(str(path), _line_of(text, row), f"grade {row.grade:g} {off_scale}")
        if key not in shown:
            raise InputError(str(path), _line_of(text, row), f"({row.qid}, {row.docid}) is not shown by {campaign}")
        if given is not None and key not in given:
            reason = f"({row.qid}, {row.docid}) is not given to {assessor} by {campaign}"
            raise InputError(str(path), _line_of(text, row), reason)
    standing = standing_grades(con, found["campaign_id"])
    imported: dict[str, list[ImportedGrade]] = {}
    for row in parsed.rows:
        pair = shown[(row.qid, row.docid)]
        grades = standing.setdefault((row.qid, row.docid), PairGrades())
        grades.grades[assessor] = row.grade
        note = f"campaign {campaign} ({pair.condition}): {assessor} graded {row.grade:g}"
        condition = str(pair.condition)
        imported.setdefault(label_set_of(campaign, pair), []).append(
            (row.qid, row.docid, grades.gold, note, assessor, condition, row.grade, pair.condition.shows_llm)
        )
    with db.transaction() as tx:
        batch = new_batch(tx, "assess import", str(path))
        for name, rows in imported.items():
            set_id = label_store.label_set_id(tx, name)
            assert set_id is not None
            campaign_store.append_imported(tx, set_id, found["campaign_id"], rows, source=str(path), batch_id=batch)
    judged = standing_grades(db.cursor(), found["campaign_id"])
    return CampaignImport(
        campaign=campaign,
        assessor=assessor,
        file=str(path),
        lines=len(parsed.rows),
        labels_written=len(parsed.rows),
        judged=sum(key in judged for key in shown),
        shown=len(shown),
    )


def _line_of(text: Text, row: QrelsRow) -> int | None:
    for number, fields in trec_lines(text):
        if len(fields) >= 3 and fields[0] == row.qid and fields[2] == row.docid:
            return number
    return None
