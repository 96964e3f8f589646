"""Label distributions of a label set's judged pairs: what its newest judge run (or `studio import
probs`) recorded of each call's probabilities over the labels."""

from __future__ import annotations

import json

from studio.domain.numbers import read_integer
from studio.store.database import Connection


def label_distributions(con: Connection, label_set: str) -> dict[tuple[str, str], dict[int, float]]:
    """(qid, docid) → {grade: probability} for the pairs of the label set's newest judge run whose
    call kept a distribution; labels that are no grades are left out (none kept: an empty dict)."""
    rows = con.execute(
        """
        WITH newest AS (SELECT max(r.judge_run_id) AS run FROM judge_runs r
                        JOIN label_sets s USING (label_set_id) WHERE s.name = ?)
        SELECT g.qid, g.docid, c.label_probs FROM judgments g JOIN newest n ON g.judge_run_id = n.run
        JOIN calls c ON c.key = g.call_key
        WHERE g.docid_b IS NULL AND g.item_id IS NULL AND c.label_probs IS NOT NULL
        """,
        [label_set],
    ).fetchall()
    found: dict[tuple[str, str], dict[int, float]] = {}
    for qid, docid, stored in rows:
        grades = {}
        for label, p in json.loads(stored).items():
            grade = read_integer(str(label))
            if grade is not None and grade >= 0:
                grades[grade] = float(p)
        if grades:
            found[(str(qid), str(docid))] = grades
    return found
