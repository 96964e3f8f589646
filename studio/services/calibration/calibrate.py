"""`studio calibrate`: a derived label set that maps an LLM label set's grades (or its expected
grades, where the judge gave a label distribution) to the people's grades of a gold label set.

The map is judged cross-fitted: the gold pairs are split into folds by topic, each fold is
predicted by the map fitted on the others, and κ and the leaderboard τ are computed on those
out-of-fold grades beside the raw label set's on the same pairs. The calibrated set holds the
out-of-fold grade for every gold pair (so `studio agree` and `studio correlate` against the gold
set show the honest figures) and the map fitted on all gold pairs for every other pair.

Output grades are put on the gold scale (the nearest gold grade), not kept fractional: binary
measures count any grade ≥ 1 as relevant and κ needs categories, so a fractional 0.6 would be
relevant to P@10 and a category of its own to κ. The fractional map is kept in the curve.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from studio.domain.errors import UsageError
from studio.domain.label_set_results import (
    CalibratedSet,
    CalibrationFigures,
    CalibrationMade,
    CalibrationMapDict,
    CurveBin,
)
from studio.domain.models import QrelsRow
from studio.metrics import agreement as agree
from studio.metrics import calibration as cal
from studio.metrics.correlation import kendall_tau_b
from studio.metrics.evaluator import Evaluator
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.store import Connection, Database
from studio.store import calibrations as cal_store
from studio.store import labels as label_store

Pair = tuple[str, str]


def llm_values(db: Database, name: str) -> tuple[dict[Pair, float], dict[Pair, float], int]:
    """({pair: grade}, {pair: value fitted on}, how many values are expected grades) of label set
    `name`. The value is the judge's expected grade while the pair still holds the judge's label,
    else the grade itself (no judge, no label distribution, or a person changed the label)."""
    con = db.cursor()
    set_id = label_store.label_set_id(con, name)
    if set_id is None:
        raise UsageError(f"no label set named {name!r} (see `studio list qrels`)")
    grades = {(r.qid, r.docid): r.grade for r in label_store.current_labels(con, set_id)}
    judged = cal_store.judge_values(con, set_id)
    values = dict(grades)
    expected = 0
    for pair, grade in grades.items():
        label, mean = judged.get(pair, (None, None))
        if mean is not None and label == grade:
            values[pair] = mean
            expected += 1
    return grades, values, expected


def _gold(db: Database, name: str) -> dict[Pair, float]:
    con = db.cursor()
    set_id = label_store.label_set_id(con, name)
    if set_id is None:
        raise UsageError(f"no label set named {name!r} (see `studio list qrels`)")
    return {(r.qid, r.docid): r.grade for r in label_store.current_labels(con, set_id)}


def _nested(pairs: list[Pair], grades: np.ndarray) -> dict[str, dict[str, float]]:
    nested: dict[str, dict[str, float]] = {}
    for (qid, docid), grade in zip(pairs, grades.tolist(), strict=True):
        nested.setdefault(qid, {})[docid] = float(grade)
    return nested


def _tau(
    engine: EvaluationEngine, measure: str, reference: np.ndarray, pairs: list[Pair], grades: np.ndarray
) -> float | None:
    if not engine.rankings().runs:
        return None
    means = Evaluator(engine.rankings(), _nested(pairs, grades)).means(measure_of(measure))
    return cal.finite(kendall_tau_b(reference, means))


@dataclass(frozen=True)
class Calibration:
    """A calibrated label set as its sources make it now: its labels (in the order they are
    written), the map fitted on every gold pair, its cross-fitted figures and its curve."""

    qrels: str
    gold: str
    method: str
    folds: int
    seed: int
    measure: str
    rows: list[QrelsRow]
    fitted: CalibrationMapDict
    figures: CalibrationFigures
    curve: list[CurveBin]

    def record(self, con: Connection, label_set: int) -> None:
        """Store how the set was made, so that it follows its sources and the screens show its figures."""
        cal_store.record_calibration(
            con,
            label_set,
            source=self.qrels,
            gold=self.gold,
            method=self.method,
            folds=self.folds,
            seed=self.seed,
            measure=self.measure,
            fitted=self.fitted,
            figures=self.figures,
            curve=self.curve,
        )

    def summary(self, name: str) -> CalibrationMade:
        """What `studio calibrate` prints."""
        return {
            "label_set": name,
            "qrels": self.qrels,
            "gold": self.gold,
            "method": self.method,
            "seed": self.seed,
            "measure": self.measure,
            **self.figures,
            "curve": self.curve,
            "map": self.fitted,
        }


def check_calibration(con: Connection, qrels: str, gold: str, name: str, method: str, *, replace: bool) -> None:
    """Refuse a calibration that cannot be made, or that would write over a set that is not one."""
    if method not in cal.METHODS:
        raise UsageError(f"unknown method {method!r} (known: {', '.join(cal.METHODS)})")
    if name in (qrels, gold):
        raise UsageError("the calibrated label set needs a name of its own")
    existing = label_store.label_set_id(con, name)
    if existing is not None and cal_store.calibration(con, name) is None:
        raise UsageError(f"label set {name!r} already exists and is not a calibrated set")
    if existing is not None and not replace:
        raise UsageError(f"label set {name!r} already exists (use --replace)")


def calibration_of(
    engine: EvaluationEngine,
    qrels: str,
    gold: str,
    *,
    method: str = "isotonic",
    folds: int = 5,
    seed: int = 0,
    measure: str = "nDCG@10",
) -> Calibration:
    """`qrels` calibrated to `gold` with `method`, as the two label sets are now; nothing is written."""
    db = engine.db
    grades, values, expected = llm_values(db, qrels)
    people = _gold(db, gold)
    shared = sorted(p for p in values if p in people)
    topics = sorted({q for q, _ in shared})
    if len(topics) < 2:
        raise UsageError(
            f"{qrels!r} and {gold!r} share pairs of {len(topics)} topic(s); cross-fitting by topic needs at least 2"
        )
    k = max(2, min(folds, len(topics)))
    fold_of = cal.topic_folds(topics, k, seed)
    x = np.array([values[p] for p in shared])
    y = np.array([people[p] for p in shared])
    raw = np.array([grades[p] for p in shared])
    held_out = cal.cross_fit(method, x, y, np.array([fold_of[q] for q, _ in shared]))
    fitted = cal.fit_map(method, x, y)
    others = [p for p in values if p not in people]
    rows = [QrelsRow(q, d, float(g)) for (q, d), g in zip(shared, held_out.tolist(), strict=True)]
    if others:
        rest = fitted.grade(np.array([values[p] for p in others]))
        rows += [QrelsRow(q, d, float(g)) for (q, d), g in zip(others, rest.tolist(), strict=True)]
    # τ on the comparison frame of two label sets: the topics both label (the shared pairs' topics), so
    # that the gold leaderboard is not a mean over topics the calibrated grades never reach.
    reference = bool(engine.rankings().runs)
    reference_values = engine.evaluator(gold).means(measure_of(measure), topics=topics) if reference else np.array([])
    figures: CalibrationFigures = {
        "pairs": len(shared),
        "topics": len(topics),
        "folds": k,
        "expected_values": expected,
        "labels": len(rows),
        "fitted_on_all": len(others),
        "kappa_raw": cal.finite(agree.cohen_kappa(y, raw)),
        "kappa_calibrated": cal.finite(agree.cohen_kappa(y, held_out)),
        "kappa_linear_raw": cal.finite(agree.cohen_kappa(y, raw, "linear")),
        "kappa_linear_calibrated": cal.finite(agree.cohen_kappa(y, held_out, "linear")),
        "tau_raw": _tau(engine, measure, reference_values, shared, raw) if reference else None,
        "tau_calibrated": _tau(engine, measure, reference_values, shared, held_out) if reference else None,
        "mean_gold": round(float(y.mean()), 4),
        "mean_raw": round(float(raw.mean()), 4),
        "mean_calibrated": round(float(held_out.mean()), 4),
    }
    return Calibration(qrels, gold, method, k, seed, measure, rows, _map_dict(fitted), figures, _curve(x, y, fitted))


def _map_dict(fitted: cal.CalibrationMap) -> CalibrationMapDict:
    """The fitted map as it is stored and printed (`CalibrationMap.as_dict`, typed)."""
    return {
        "method": fitted.method,
        "levels": list(fitted.levels),
        "xs": list(fitted.xs),
        "ys": list(fitted.ys),
        "params": list(fitted.params),
    }


def _curve(x: np.ndarray, y: np.ndarray, fitted: cal.CalibrationMap) -> list[CurveBin]:
    """The calibration curve's bins (`calibration.curve`, typed)."""
    return [
        {
            "low": b["low"],
            "high": b["high"],
            "pairs": int(b["pairs"]),
            "mean_llm": b["mean_llm"],
            "mean_gold": b["mean_gold"],
            "fitted": b["fitted"],
        }
        for b in cal.curve(x, y, fitted)
    ]


def calibrated_sets(db: Database) -> list[CalibratedSet]:
    """Every calibrated label set with its figures, curve and map (for the report and the screens)."""
    return cal_store.calibrations(db.cursor())
