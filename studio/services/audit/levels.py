"""Each label set on its own scale: the relevance level a binary measure uses for the LLM label
set beside the one it uses for people, and a warning when a label set's grades cannot reach it.

A binary judge grading 0/1 never reaches TREC DL's level 2: with `P(rel=2)@10` it would count
nothing as relevant, and an estimate would silently fall back to the gold sample alone. Its own
level (`--llm-relevant 1`) puts its "relevant" beside the people's "relevant at 2".
"""

from __future__ import annotations

from dataclasses import replace

from studio.metrics.measures import MEASURES
from studio.metrics.names import Measure
from studio.services.evaluation.engine import EvaluationEngine


def uses_level(measure: Measure) -> bool:
    """Whether the measure reads grades through a relevance level (P, R, AP, RR, Rprec)."""
    spec = MEASURES.get(measure.name)
    return spec is not None and spec.takes_rel


def at_level(measure: Measure, rel: float | None) -> Measure:
    """The measure at another relevance level (None: unchanged; measures without one ignore it)."""
    return measure if rel is None or not uses_level(measure) else replace(measure, rel=float(rel))


def highest_grade(engine: EvaluationEngine, label_set: str) -> float | None:
    grades = [g for labels in engine.evaluator(label_set).labels.values() for g in labels.judged.values()]
    return max(grades) if grades else None
