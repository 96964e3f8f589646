"""Warnings for relevance levels a label set's grades never reach, in `eval`, `correlate` and `agree`.

A binary judge (grades 0/1) under `P(rel=2)@10` calls nothing relevant: its leaderboard is all
zeros and its τ against the people's leaderboard says nothing about the judge. The same holds for
κ binary at a threshold above a set's highest grade. Each side names how to give it its own level,
since the remedy differs by command (the measure's `rel=`, `--llm-relevant`, `--ref-threshold`).
"""

from __future__ import annotations

from studio.metrics.names import Measure
from studio.services.audit.levels import highest_grade, uses_level
from studio.services.evaluation.engine import EvaluationEngine


def unreachable(engine: EvaluationEngine, label_set: str, level: float, what: str, remedy: str) -> list[str]:
    """A warning (a one-item list) when `label_set`'s grades stay below `level`, else none.

    `what` names what the level is for (a measure, κ binary); `remedy` says how to lower it."""
    top = highest_grade(engine, label_set)
    if top is None or top >= level:
        return []
    return [
        f"{label_set}'s grades reach at most {top:g}: at relevance level {level:g} it calls no pair "
        f"relevant for {what}; {remedy.format(top=f'{top:g}')}"
    ]


def measure_warnings(engine: EvaluationEngine, label_set: str, measures: list[Measure]) -> list[str]:
    """`studio eval`'s warnings: each binary measure whose `rel=` the label set's grades never reach."""
    found: list[str] = []
    for measure in measures:
        if uses_level(measure):
            found += unreachable(
                engine, label_set, measure.rel, str(measure), "lower the measure's rel= (e.g. rel={top})"
            )
    return found


def side_warnings(
    engine: EvaluationEngine, ref: str, qrels: str, ref_measure: Measure, qrels_measure: Measure
) -> list[str]:
    """The warnings of two sides scored at their own levels (`correlate`, `estimate`, `audit simulate`):
    the reference at the measure's level, the compared set at its own, each with its remedy."""
    if not uses_level(ref_measure):
        return []
    return unreachable(
        engine, ref, ref_measure.rel, str(ref_measure), "lower the measure's rel= (e.g. rel={top})"
    ) + unreachable(
        engine, qrels, qrels_measure.rel, str(qrels_measure), "give it its own level (--llm-relevant {top})"
    )


def threshold_warnings(engine: EvaluationEngine, ref: str, qrels: str, ref_level: float, level: float) -> list[str]:
    """`studio agree`'s warnings: a side whose binary threshold its grades never reach."""
    return unreachable(engine, ref, ref_level, "κ binary", "lower --ref-threshold (e.g. {top})") + unreachable(
        engine, qrels, level, "κ binary", "lower --llm-relevant (e.g. {top})"
    )
