"""A condition's grades as a paper prints them (docs/assess.md#report): the people's integer
grades per grade (Table 1) and against the LLM's in a matrix (Fig. 5).

A campaign's label of an overlap pair is the mean of its assessors' grades until someone settles
it; a mean (1.5, or 2 from a 1 and a 3) is no grade on the assessors' scale. So a pair counts at a
grade only when every assessor who graded it gave that grade, and the pairs whose assessors differ
are counted apart, with their mean and the LLM's grade — never as a column "1.5".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from studio.domain.campaign_report import ConfusionMatrix, DifferingGrades, GradeCount
from studio.domain.numbers import ASSESSOR_GRADES
from studio.services.audit.assessments import PairGrades

Pair = tuple[str, str]
ROWS = tuple(int(g) for g in ASSESSOR_GRADES)


def agreed_grade(pair: PairGrades) -> int | None:
    """The pair's grade when it has one on the assessors' scale: adjudicated, or the one grade all its
    assessors gave; None when they differ (or nobody graded it)."""
    values = {pair.adjudicated} if pair.adjudicated is not None else set(pair.grades.values())
    if len(values) != 1:
        return None
    (grade,) = values
    return int(grade) if grade in ASSESSOR_GRADES else None


def grade_counts(judged: Mapping[Pair, PairGrades], topics: int) -> tuple[list[GradeCount], int]:
    """Table 1's passages per grade (0–3, every grade listed) and per topic, of the judged pairs whose
    assessors agree; and the judged pairs whose assessors differ."""
    agreed = [agreed_grade(p) for p in judged.values() if p.gold is not None]
    counts = Counter(g for g in agreed if g is not None)
    rows = [GradeCount(grade=float(g), pairs=counts[g], per_topic=counts[g] / topics if topics else 0.0) for g in ROWS]
    return rows, sum(g is None for g in agreed)


def confusion_matrix(judged: Mapping[Pair, PairGrades], llm: Mapping[Pair, float | None]) -> ConfusionMatrix:
    """Rows the people's grade (0–3), columns the LLM's (0–3 and any other grade it gave); the pairs
    the LLM did not grade in a column apart, the pairs whose assessors differ in a list apart."""
    columns = sorted({*ASSESSOR_GRADES, *(g for pair in judged if (g := llm.get(pair)) is not None)})
    cells = [[0] * len(columns) for _ in ROWS]
    ungraded = [0] * len(ROWS)
    differing: Counter[tuple[float, float | None]] = Counter()
    for pair, grades in judged.items():
        if grades.gold is None:
            continue
        row, theirs = agreed_grade(grades), llm.get(pair)
        if row is None:
            differing[(grades.gold, theirs)] += 1
        elif theirs is None:
            ungraded[ROWS.index(row)] += 1
        else:
            cells[ROWS.index(row)][columns.index(theirs)] += 1
    return ConfusionMatrix(
        assessor_grades=list(ROWS),
        llm_grades=columns,
        pairs=cells,
        llm_ungraded=ungraded,
        differing=[
            DifferingGrades(mean=mean, llm=theirs, pairs=n)
            for (mean, theirs), n in sorted(differing.items(), key=lambda c: (c[0][0], _order(c[0][1])))
        ],
    )


def _order(grade: float | None) -> float:
    return float("-inf") if grade is None else grade
