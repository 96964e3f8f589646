"""What a judge run left behind, read back after it: its judgments with their calls' outputs (a
reparse, the exports, grading verification) and the updates those make to the judgments.

The judge runs themselves, the call cache and the writing of judgments are `studio.store.judging`'s.
"""

from __future__ import annotations

from typing import NamedTuple

from studio.domain.judge_results import VerificationRow
from studio.store.database import Connection, typed_records


class StoredOutput(NamedTuple):
    """A judgment that made a call, with the call's raw output (None: the call failed, `error` says why)."""

    rowid: int  # the judgment's row, for `relabel`
    qid: str
    docid: str
    docid_b: str | None
    label: float | None
    output: str | None
    error: str | None


def stored_outputs(con: Connection, run: int) -> list[StoredOutput]:
    """Every judgment of a run that made a call, with its call's output: what a reparse reads again."""
    rows = con.execute(
        """
        SELECT g.rowid, g.qid, g.docid, g.docid_b, g.label, c.output, c.error
        FROM judgments g LEFT JOIN calls c ON c.key = g.call_key
        WHERE g.judge_run_id = ? AND g.call_key <> ''
        """,
        [run],
    ).fetchall()
    return [StoredOutput(*row) for row in rows]


def relabel(con: Connection, rowid: int, label: float | None, parse_error: str | None) -> None:
    """A judgment's label and parse error as a new reading of its output gives them (`rowid` of `stored_outputs`)."""
    con.execute("UPDATE judgments SET label = ?, parse_error = ? WHERE rowid = ?", [label, parse_error, rowid])


def preference_answers(con: Connection, run: int) -> dict[tuple[str, str, str], float | None]:
    """{(qid, docid, docid_b): label} of a run's preference judgments (None: a failure)."""
    rows = con.execute(
        "SELECT qid, docid, docid_b, label FROM judgments WHERE judge_run_id = ? AND docid_b IS NOT NULL", [run]
    ).fetchall()
    return {(q, a, b): label for q, a, b, label in rows}


class PairDistribution(NamedTuple):
    qid: str
    docid: str
    label_probs: str | None  # JSON {label: probability} of the pair's call; None: it has none


def newest_run_distributions(con: Connection, label_set: int) -> list[PairDistribution]:
    """The pairs the label set's newest judge run judged (no preference or item judgments), by
    topic then docid, each with its call's label distribution; empty when no judge made the set."""
    rows = con.execute(
        """
        SELECT g.qid, g.docid, c.label_probs
        FROM judgments g LEFT JOIN calls c ON c.key = g.call_key
        WHERE g.judge_run_id = (SELECT max(judge_run_id) FROM judge_runs WHERE label_set_id = ?)
          AND g.docid_b IS NULL AND g.item_id IS NULL
        ORDER BY g.qid, g.docid
        """,
        [label_set],
    ).fetchall()
    return [PairDistribution(*row) for row in rows]


class JudgmentRecord(NamedTuple):
    """One judgment with its call and its run, as `studio export judgments` writes it."""

    qid: str
    docid: str
    docid_b: str | None
    item_id: str | None
    label: float | None
    parse_error: str | None
    messages: str | None  # JSON: the rendered prompt (None: no call was made)
    output: str | None
    method: str
    model: str
    confidence: float | None
    expected: float | None
    label_probs: str | None  # JSON {label: probability}
    backend: str
    params: str  # JSON: the run's parameters


def newest_run_judgments(con: Connection, label_set: int) -> list[JudgmentRecord]:
    """Every judgment of the label set's newest judge run, by topic, docid, second docid and item;
    empty when no judge made the set."""
    rows = con.execute(
        """
        SELECT g.qid, g.docid, g.docid_b, g.item_id, g.label, g.parse_error, c.messages, c.output,
               r.method, r.model, g.confidence, g.expected, c.label_probs, r.backend, r.params
        FROM judgments g JOIN judge_runs r USING (judge_run_id) LEFT JOIN calls c ON c.key = g.call_key
        WHERE g.judge_run_id = (SELECT max(judge_run_id) FROM judge_runs WHERE label_set_id = ?)
        ORDER BY g.qid, g.docid, g.docid_b, g.item_id
        """,
        [label_set],
    ).fetchall()
    return [JudgmentRecord(*row) for row in rows]


def judged_items(con: Connection, run: int) -> list[tuple[str, str, str]]:
    """(qid, docid, item_id) of every cell a rubric judge run graded, each once."""
    rows = con.execute(
        "SELECT DISTINCT qid, docid, item_id FROM judgments WHERE judge_run_id = ? AND item_id IS NOT NULL", [run]
    ).fetchall()
    return [(q, d, i) for q, d, i in rows]


def set_answer_key(con: Connection, run: int, qid: str, docid: str, item_id: str, key: str) -> None:
    """Point a graded cell at the call that extracted the document's answer to the item."""
    con.execute(
        "UPDATE judgments SET answer_key = ? WHERE judge_run_id = ? AND qid = ? AND docid = ? AND item_id = ?",
        [key, run, qid, docid, item_id],
    )


def verification_rows(con: Connection, run: int, item_id: str | None = None) -> list[VerificationRow]:
    """A rubric judge run's item judgments (of one item, or all), by item, then grade (highest
    first, failures last) and docid, each with the answer extracted from the document."""
    cursor = con.execute(
        """
        SELECT g.item_id, g.qid, g.docid, g.label AS grade, c.output AS answer
        FROM judgments g LEFT JOIN calls c ON c.key = g.answer_key
        WHERE g.judge_run_id = ? AND g.item_id IS NOT NULL AND (? IS NULL OR g.item_id = ?)
        ORDER BY g.item_id, g.label DESC NULLS LAST, g.docid
        """,
        [run, item_id, item_id],
    )
    return typed_records(cursor, VerificationRow)
