"""Queries behind the report's audit history: who edited which label set, and the review log."""

from __future__ import annotations

from typing import Any

from studio.store.database import Connection, records


def label_edit_counts(con: Connection) -> list[dict[str, Any]]:
    """Per person and label set: audited edits, undos and the span of time they were made in."""
    cursor = con.execute(
        """
        SELECT e.source AS person, s.name AS qrels,
               count(*) FILTER (WHERE e.origin = 'person') AS edits,
               count(*) FILTER (WHERE e.origin = 'undo') AS undos,
               count(DISTINCT (e.qid, e.docid)) AS pairs,
               strftime(min(e.created_at), '%Y-%m-%d %H:%M:%S') AS first,
               strftime(max(e.created_at), '%Y-%m-%d %H:%M:%S') AS last
        FROM label_events e JOIN label_sets s USING (label_set_id)
        WHERE e.origin IN ('person', 'undo')
        GROUP BY e.source, s.name
        ORDER BY e.source NULLS LAST, s.name
        """
    )
    return records(cursor)


def review_action_counts(con: Connection) -> list[dict[str, Any]]:
    """Rows of the review log counted per (reference, audited label set, person, action)."""
    cursor = con.execute(
        """
        SELECT ref, qrels, person, action, count(*) AS decisions
        FROM review_decisions
        GROUP BY ref, qrels, person, action
        ORDER BY ref, qrels, person NULLS LAST, action
        """
    )
    return records(cursor)
