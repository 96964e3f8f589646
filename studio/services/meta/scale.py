"""Label sets on another scale than the reference's: some published submissions hold a few 5s
and 10s on a 0–3 scale. `studio agree` and `studio compare` warn about them and, with `--clip`,
compare a copy whose grades are clipped into the reference's range (the stored set is untouched;
the values without clipping stay the default, as published studies computed them)."""

from __future__ import annotations

from studio.metrics.evaluator import Evaluator
from studio.services.evaluation.engine import EvaluationEngine


def grade_range(engine: EvaluationEngine, name: str) -> tuple[float, float] | None:
    grades = [g for topic in engine.evaluator(name).labels.values() for g in topic.judged.values()]
    return (min(grades), max(grades)) if grades else None


def outside_scale(engine: EvaluationEngine, ref: str, names: list[str]) -> list[str]:
    """One warning per label set holding grades outside the reference's range."""
    scale = grade_range(engine, ref)
    if scale is None:
        return []
    low, high = scale
    warnings = []
    for name in names:
        outside = sorted(
            {
                g
                for topic in engine.evaluator(name).labels.values()
                for g in topic.judged.values()
                if g < low or g > high
            }
        )
        if outside:
            count = sum(
                1
                for topic in engine.evaluator(name).labels.values()
                for g in topic.judged.values()
                if g < low or g > high
            )
            shown = ", ".join(f"{g:g}" for g in outside[:6]) + (", …" if len(outside) > 6 else "")
            warnings.append(
                f"{name} holds {count} grade{'s' if count != 1 else ''} outside {ref}'s scale "
                f"{low:g}–{high:g} ({shown}); --clip compares them clipped into it"
            )
    return warnings


def clipped(engine: EvaluationEngine, ref: str, name: str) -> str:
    """The name of an in-memory copy of `name` with its grades clipped into `ref`'s range."""
    scale = grade_range(engine, ref)
    if scale is None:
        return name
    low, high = scale
    copy = f"{name} (clipped to {low:g}–{high:g})"
    source = engine.evaluator(name)
    labels = {q: {d: min(max(g, low), high) for d, g in topic.judged.items()} for q, topic in source.labels.items()}
    numbers = {q: dict(topic.numbers) for q, topic in source.labels.items()}
    engine.remember(copy, Evaluator(engine.rankings(), labels, numbers))
    return copy
