"""An LLM label set's pool as an audit draws from it (each pair with its stratum), and a pilot's
gold − LLM differences on it: what every design starts from."""

from __future__ import annotations

from dataclasses import dataclass

from studio.domain.errors import UsageError
from studio.domain.numbers import grade_problem
from studio.store import Connection
from studio.store import audits as audit_store
from studio.store import labels as label_store


@dataclass(frozen=True)
class PoolPair:
    qid: str
    docid: str
    grade: float
    stratum: str | None = None


def stratum_of(strata: str, qid: str, grade: float, confidence: float | None) -> str:
    if strata == "grade":
        return f"grade {grade:g}"
    if strata == "topic":
        return qid
    if confidence is None:
        return "confidence unknown"
    return "confidence <0.5" if confidence < 0.5 else "confidence 0.5–0.8" if confidence < 0.8 else "confidence ≥0.8"


def pool_pairs(con: Connection, label_set: str, strata: str | None = None) -> list[PoolPair]:
    """The label set's pool in a fixed order (the seed then decides the sample), with strata."""
    rows = audit_store.pool(con, label_set)
    if not rows:
        raise UsageError(f"label set {label_set!r} labels no pair (see `studio list qrels`)")
    known = audit_store.confidences(con, label_set) if strata == "confidence" else {}
    return [
        PoolPair(q, d, g, None if strata is None else stratum_of(strata, q, g, known.get((q, d)))) for q, d, g in rows
    ]


def _grades(con: Connection, label_set: str) -> list[tuple[str, str, float]]:
    """The label set's pairs and grades; refused when one is no grade the studio reads today (a file
    imported before grades were bounded): its squares would overflow the audit's variances."""
    found = audit_store.pool(con, label_set)
    for qid, docid, grade in found:
        problem = grade_problem(grade)
        if problem is not None:
            raise UsageError(
                f"label set {label_set!r} grades ({qid}, {docid}) {grade!r}, which {problem}"
                " (correct it with `studio label`)"
            )
    return found


def pilot_differences(
    con: Connection, label_set: str, pilot: str | None
) -> tuple[str | None, dict[tuple[str, str], float]]:
    """gold − LLM on the pilot's pairs of the pool: the label set named `pilot`, or else the gold
    labels of the earlier audits of `label_set` (None: there is no pilot)."""
    llm = {(q, d): g for q, d, g in _grades(con, label_set)}
    if pilot is not None:
        if label_store.label_set_id(con, pilot) is None:
            raise UsageError(f"no label set named {pilot!r} for --pilot (see `studio list qrels`)")
        sources = [pilot]
    else:
        sources = [row["name"] for row in audit_store.audits(con, label_set)]
    differences: dict[tuple[str, str], float] = {}
    for source in sources:
        for qid, docid, gold in _grades(con, source):
            if (qid, docid) in llm:
                differences[(qid, docid)] = gold - llm[(qid, docid)]
    if not differences:
        return None, {}
    return (pilot if pilot is not None else ", ".join(sources)), differences
