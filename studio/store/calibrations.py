"""Calibrated label sets: how each was made, its fitted map, cross-fitted figures and curve."""

from __future__ import annotations

import json
from typing import Any

from studio.domain.json_text import json_text
from studio.domain.label_set_results import CalibratedSet, CalibrationFigures, CalibrationMapDict, CurveBin
from studio.store.database import Connection


def record_calibration(
    con: Connection,
    label_set: int,
    *,
    source: str,
    gold: str,
    method: str,
    folds: int,
    seed: int,
    measure: str,
    fitted: CalibrationMapDict,
    figures: CalibrationFigures,
    curve: list[CurveBin],
) -> None:
    con.execute(
        "INSERT OR REPLACE INTO calibrations (label_set_id, source, gold, method, folds, seed, measure, fitted,"
        " figures, curve, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, current_timestamp)",
        [
            label_set,
            source,
            gold,
            method,
            folds,
            seed,
            measure,
            json_text(fitted, ensure_ascii=True),
            json_text(figures, ensure_ascii=True),
            json_text(curve, ensure_ascii=True),
        ],
    )


def _decoded(row: tuple[Any, ...]) -> CalibratedSet:
    """A row of _SELECT, its JSON columns read (as `record_calibration` wrote them)."""
    name, source, gold, method, folds, seed, measure, fitted, figures, curve, updated = row
    return {
        "name": name,
        "source": source,
        "gold": gold,
        "method": method,
        "folds": folds,
        "seed": seed,
        "measure": measure,
        "fitted": json.loads(fitted),
        "figures": json.loads(figures),
        "curve": json.loads(curve),
        "updated": updated,
    }


_SELECT = (
    "SELECT l.name, c.source, c.gold, c.method, c.folds, c.seed, c.measure, c.fitted, c.figures, c.curve,"
    " strftime(c.updated_at, '%Y-%m-%d %H:%M:%S') FROM calibrations c JOIN label_sets l USING (label_set_id)"
)


def calibrations(con: Connection) -> list[CalibratedSet]:
    """Every calibrated label set, by name."""
    return [_decoded(row) for row in con.execute(_SELECT + " ORDER BY l.name").fetchall()]


def calibration(con: Connection, name: str) -> CalibratedSet | None:
    row = con.execute(_SELECT + " WHERE l.name = ?", [name]).fetchone()
    return None if row is None else _decoded(row)


def calibrations_following(con: Connection, source: str) -> list[CalibratedSet]:
    """The calibrated label sets made from `source`, as the LLM's labels or as the gold ones."""
    return [
        _decoded(row)
        for row in con.execute(
            _SELECT + " WHERE c.source = ? OR c.gold = ? ORDER BY l.name", [source, source]
        ).fetchall()
    ]


def any_following(con: Connection, source: str) -> bool:
    """Cheap check before refreshing: does any calibrated set follow `source`?"""
    return (
        con.execute("SELECT 1 FROM calibrations WHERE source = ? OR gold = ? LIMIT 1", [source, source]).fetchone()
        is not None
    )


def judge_values(con: Connection, label_set: int) -> dict[tuple[str, str], tuple[float | None, float | None]]:
    """{(qid, docid): (label, expected grade)} of the label set's newest judge run's whole-document
    judgments; the expected grade is NULL when the backend gave no label distribution."""
    rows = con.execute(
        """
        SELECT qid, docid, label, expected FROM judgments
        WHERE judge_run_id = (SELECT max(judge_run_id) FROM judge_runs WHERE label_set_id = ?)
          AND item_id IS NULL AND docid_b IS NULL
        """,
        [label_set],
    ).fetchall()
    return {
        (q, d): (None if label is None else float(label), None if expected is None else float(expected))
        for q, d, label, expected in rows
    }
