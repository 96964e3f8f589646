"""The review log and what the Review screen shows about one (topic, document) pair."""

from __future__ import annotations

import json
from collections.abc import Sequence

from studio.domain.rows import Decision, ItemGrade, JudgeOutput
from studio.store.database import Connection, records, typed_records

LIVE = "NOT EXISTS (SELECT 1 FROM review_decisions u WHERE u.undoes = d.decision_id)"


def add_decision(
    con: Connection,
    ref: str,
    qrels: str,
    qid: str,
    docid: str,
    action: str,
    *,
    grade: float | None = None,
    label_event: int | None = None,
    note: str | None = None,
    person: str | None = None,
    undoes: int | None = None,
) -> Decision:
    """Log one decision; the entry as `decisions` lists it."""
    row = con.execute(
        """
        INSERT INTO review_decisions (decision_id, ref, qrels, qid, docid, action, grade, label_event, note,
                                      person, undoes)
        VALUES (nextval('review_decision_ids'), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        RETURNING decision_id, strftime(created_at, '%Y-%m-%d %H:%M:%S')
        """,
        [ref, qrels, qid, docid, action, grade, label_event, note, person, undoes],
    ).fetchone()
    assert row is not None
    return Decision(
        decision=int(row[0]),
        qid=qid,
        docid=docid,
        action=action,
        grade=grade,
        label_event=label_event,
        note=note,
        person=person,
        time=str(row[1]),
    )


def decisions(con: Connection, ref: str, qrels: str, limit: int | None = None) -> list[Decision]:
    """Live decisions of one review (not undone, undo rows left out), newest first."""
    cursor = con.execute(
        f"""
        SELECT decision_id AS decision, qid, docid, action, grade, label_event, note, person,
               strftime(created_at, '%Y-%m-%d %H:%M:%S') AS time
        FROM review_decisions d
        WHERE ref = ? AND qrels = ? AND action <> 'undo' AND {LIVE}
        ORDER BY decision_id DESC {"LIMIT " + str(int(limit)) if limit is not None else ""}
        """,
        [ref, qrels],
    )
    return typed_records(cursor, Decision)


Judged = tuple[list[JudgeOutput], list[ItemGrade]]  # a pair's judgments, and its rubric grades


def pairs_judgments(con: Connection, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], Judged]:
    """What each judge-made label set's newest run said of each pair, read at once for them all (the
    Review screen reads pairs ahead of the keys): its judgments of the pair (label, confidence, raw
    output), and its rubric grades of the pair with the item text."""
    if not pairs:
        return {}
    cursor = con.execute(
        """
        WITH newest AS (SELECT label_set_id, max(judge_run_id) AS run FROM judge_runs GROUP BY label_set_id),
        wanted AS (SELECT unnest($qids) AS qid, unnest($docids) AS docid)
        SELECT g.qid, g.docid, s.name AS label_set, r.method, r.backend, r.model, g.item_id, g.label,
               g.confidence, g.expected, g.parse_error, c.output, c.label_probs, a.output AS answer
        FROM judgments g JOIN wanted w ON w.qid = g.qid AND w.docid = g.docid
        JOIN newest n ON n.run = g.judge_run_id
        JOIN judge_runs r ON r.judge_run_id = g.judge_run_id JOIN label_sets s ON s.label_set_id = r.label_set_id
        LEFT JOIN calls c ON c.key = g.call_key AND g.item_id IS NULL
        LEFT JOIN calls a ON a.key = g.answer_key AND g.item_id IS NOT NULL
        WHERE g.docid_b IS NULL
        ORDER BY s.name, g.label DESC NULLS LAST, g.item_id
        """,
        {"qids": [qid for qid, _ in pairs], "docids": [docid for _, docid in pairs]},
    )
    judged: dict[tuple[str, str], Judged] = {pair: ([], []) for pair in pairs}
    graded: list[tuple[str, ItemGrade]] = []  # (qid, grade): the items' texts are read after
    for row in records(cursor):
        outputs, items = judged[(row["qid"], row["docid"])]
        if row["item_id"] is None:
            outputs.append(
                JudgeOutput(
                    label_set=row["label_set"],
                    method=row["method"],
                    backend=row["backend"],
                    model=row["model"],
                    label=row["label"],
                    confidence=row["confidence"],
                    expected=row["expected"],
                    parse_error=row["parse_error"],
                    output=row["output"],
                    label_probs=json.loads(row["label_probs"]) if row["label_probs"] else None,
                )
            )
        else:
            item = ItemGrade(
                label_set=row["label_set"],
                method=row["method"],
                item_id=row["item_id"],
                grade=row["label"],
                answer=row["answer"],
            )
            items.append(item)
            graded.append((row["qid"], item))
    if graded:  # most pairs: no rubric judge graded them, and the bank view need not be read
        wanted = sorted({(qid, item["item_id"]) for qid, item in graded})
        texts = {
            (qid, item_id): (kind, text)
            for qid, item_id, kind, text in con.execute(
                "SELECT b.qid, b.item_id, any_value(b.kind), any_value(b.text) FROM bank_items b"
                " JOIN (SELECT unnest($qids) AS qid, unnest($items) AS item_id) w"
                " ON w.qid = b.qid AND w.item_id = b.item_id GROUP BY b.qid, b.item_id",
                {"qids": [qid for qid, _ in wanted], "items": [item_id for _, item_id in wanted]},
            ).fetchall()
        }
        for qid, item in graded:
            item["kind"], item["text"] = texts.get((qid, item["item_id"]), (None, None))
    return judged
