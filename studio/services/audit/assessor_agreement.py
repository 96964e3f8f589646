"""How far an audit's assessors agree on the pairs given to more than one of them: Cohen's κ for
each couple (unweighted and weighted, as `studio agree` computes them), Krippendorff's α (ordinal)
over all assessors, and the conflicts still to adjudicate."""

from __future__ import annotations

import itertools
import math

import numpy as np

from studio.domain.audit_results import AssessorAgreement, CoupleAgreement
from studio.metrics import agreement as agree
from studio.metrics.reliability import krippendorff_alpha
from studio.services.audit.assessments import PairGrades, conflicts, standing_grades
from studio.services.audit.assignment import assessors_of, audit_record
from studio.store import Database


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def agreement_of(pairs: list[PairGrades], names: list[str]) -> tuple[list[CoupleAgreement], int, float | None]:
    """κ per couple of `names` on the pairs both graded, the pairs graded by more than one, and
    Krippendorff's α (ordinal) over all on them (None: no shared pair)."""
    couples: list[CoupleAgreement] = []
    for first, second in itertools.combinations(names, 2):
        both = [p.grades for p in pairs if first in p.grades and second in p.grades]
        x = np.array([g[first] for g in both], dtype=np.float64)
        y = np.array([g[second] for g in both], dtype=np.float64)
        couples.append(
            CoupleAgreement(
                assessor_a=first,
                assessor_b=second,
                pairs=len(both),
                agreeing=int((x == y).sum()),
                kappa=_finite(agree.cohen_kappa(x, y)) if both else None,
                kappa_linear=_finite(agree.cohen_kappa(x, y, "linear")) if both else None,
                kappa_quadratic=_finite(agree.cohen_kappa(x, y, "quadratic")) if both else None,
            )
        )
    shared = [p.grades for p in pairs if len(p.grades) > 1]
    data = np.array([[g.get(name, np.nan) for g in shared] for name in names], dtype=np.float64)
    alpha = _finite(krippendorff_alpha(data, "ordinal")) if shared else None
    return couples, len(shared), alpha


def assessor_agreement(db: Database, audit: str) -> AssessorAgreement:
    """Per couple of assessors the pairs both graded and κ; α over all; the open conflicts."""
    con = db.cursor()
    found = audit_record(con, audit)
    standing = standing_grades(con, found["audit_id"])
    names = sorted(set(assessors_of(con, found["audit_id"])) | {a for p in standing.values() for a in p.grades})
    couples, shared, alpha = agreement_of(list(standing.values()), names)
    open_conflicts = conflicts(con, audit)
    return AssessorAgreement(
        audit=audit,
        assessors=names,
        overlap_pairs=shared,
        krippendorff_alpha=alpha,
        couples=couples,
        conflicts=open_conflicts,
        adjudicated=sum(p.adjudicated is not None for p in standing.values()),
    )
