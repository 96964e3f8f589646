"""Reading what a label set says of generated answers (documents named `answer/<system>`): the sets
that label answers, and the judgments behind one answer's verdict."""

from __future__ import annotations

from typing import NamedTuple

from studio.domain.models import ANSWER_PREFIX
from studio.store.database import Connection


class PairJudgment(NamedTuple):
    """A judgment of the newest judge run that judged an answer: the answer alone, one of its
    subtopics (item), or one order of a preference (the answer and the passage or answer beside it)."""

    run: int
    docid: str
    docid_b: str | None
    item_id: str | None
    label: float | None
    parse_error: str | None
    output: str | None  # the call's raw answer (an imported verdict's word)


def answer_label_sets(con: Connection) -> list[str]:
    """The label sets holding a label of some generated answer, by name."""
    rows = con.execute(
        "SELECT DISTINCT s.name FROM labels l JOIN label_sets s USING (label_set_id)"
        " WHERE starts_with(l.docid, ?) ORDER BY s.name",
        [ANSWER_PREFIX],
    ).fetchall()
    return [str(name) for (name,) in rows]


def newest_pair_judgments(con: Connection, label_set: int, qid: str, docid: str) -> list[PairJudgment]:
    """The judgments of (qid, docid) by the newest of the set's judge runs that judged it (an answers
    set imported system by system has a run per system), in the order they were written."""
    rows = con.execute(
        """
        WITH mine AS (
            SELECT g.rowid AS row_number, g.*, c.output
            FROM judgments g JOIN judge_runs r USING (judge_run_id) LEFT JOIN calls c ON c.key = g.call_key
            WHERE r.label_set_id = ? AND g.qid = ? AND (g.docid = ? OR g.docid_b = ?)
        )
        SELECT judge_run_id, docid, docid_b, item_id, label, parse_error, output FROM mine
        WHERE judge_run_id = (SELECT max(judge_run_id) FROM mine)
        ORDER BY row_number
        """,
        [label_set, qid, docid, docid],
    ).fetchall()
    return [PairJudgment(int(r[0]), *r[1:]) for r in rows]


def checked_answers(con: Connection, label_set: int) -> set[tuple[str, str]]:
    """The (qid, docid) of the set's answers a person's edit (a verdict kept or overridden) still
    stands on: not undone, and not overwritten since by an import, a judge or a derivation."""
    rows = con.execute(
        """
        SELECT DISTINCT e.qid, e.docid FROM label_events e
        WHERE e.label_set_id = ? AND e.origin = 'person' AND starts_with(e.docid, ?)
          AND e.event_id NOT IN (SELECT undoes FROM label_events WHERE undoes IS NOT NULL)
          AND NOT EXISTS (
              SELECT 1 FROM label_events later
              WHERE later.label_set_id = e.label_set_id AND later.qid = e.qid AND later.docid = e.docid
                AND later.event_id > e.event_id AND later.origin NOT IN ('person', 'undo'))
        """,
        [label_set, ANSWER_PREFIX],
    ).fetchall()
    return {(str(qid), str(docid)) for qid, docid in rows}
