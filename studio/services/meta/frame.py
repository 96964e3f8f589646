"""Where every comparison of two label sets gets its frame: the topics it stands on."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from studio.domain.errors import UsageError
from studio.domain.frames import EVERY_TOPIC, ComparisonFrame, TopicChoice
from studio.metrics.evaluator import Evaluator
from studio.metrics.names import Measure
from studio.services.audit.levels import uses_level
from studio.services.evaluation.engine import EvaluationEngine


def comparison_frame(
    engine: EvaluationEngine,
    ref: str,
    qrels: str,
    choice: TopicChoice = EVERY_TOPIC,
    measure: Measure | None = None,
    qrels_measure: Measure | None = None,
) -> ComparisonFrame:
    """The frame of `ref` and `qrels` as `choice` asks (by default the topics both label), with the
    leaderboards' measure when there is one (`qrels_measure`: the other side's form of it, at its
    own relevance level)."""
    ref_eval, aud_eval = engine.evaluator(ref), engine.evaluator(qrels)
    chosen = choice.subset or ()
    check_subset(choice, ref_eval.knows(chosen) | aud_eval.knows(chosen))
    levels = None
    if measure is not None and uses_level(measure):
        levels = (measure.rel, (qrels_measure or measure).rel)
    return ComparisonFrame.of(
        ref,
        qrels,
        ref_eval.labelled_topics(),
        aud_eval.labelled_topics(),
        choice,
        runs=tuple(ref_eval.runs),
        measure=None if measure is None else str(measure),
        levels=levels,
    )


def check_subset(choice: TopicChoice, known: set[str]) -> None:
    """A chosen topic outside `known` (no run retrieves it, no label set labels it) is a typo,
    refused (exit 2)."""
    if choice.subset is None:
        return
    unknown = [q for q in choice.subset if q not in known]
    if unknown:
        shown = ", ".join(repr(q) for q in unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        raise UsageError(f"topic {shown} is not in the project: no run retrieves it and no label set labels it")
    if not choice.subset:
        raise UsageError("the chosen topics are none: give at least one (--topic QID or --topics-file FILE)")


def side_means(
    engine: EvaluationEngine,
    frame: ComparisonFrame,
    ref_measure: Measure,
    qrels_measure: Measure,
    *,
    complete: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Each side's leaderboard (a mean per run) over the topics the frame gives it."""
    ref_eval, aud_eval = engine.evaluator(frame.ref), engine.evaluator(frame.qrels)
    return (
        framed_means(ref_eval, ref_measure, frame.ref_topics(), complete=complete),
        framed_means(aud_eval, qrels_measure, frame.qrels_topics(), complete=complete),
    )


def evaluated_runs(
    engine: EvaluationEngine, frame: ComparisonFrame, ref_measure: Measure, qrels_measure: Measure
) -> np.ndarray:
    """Which runs (a boolean per run) some topic of the frame evaluates on both sides. A run that
    retrieved none of a side's topics has no mean there: ranked at 0.0, it would be tied with every
    such run and below every run that scored, and τ would count agreements nobody measured."""

    def evaluated(evaluator: Evaluator, measure: Measure, topics: tuple[str, ...]) -> np.ndarray:
        values = evaluator.per_topic(measure)[evaluator.rows_of(topics)]
        return np.asarray((~np.isnan(values)).any(axis=0))

    ref_eval, aud_eval = engine.evaluator(frame.ref), engine.evaluator(frame.qrels)
    both: np.ndarray = evaluated(ref_eval, ref_measure, frame.ref_topics()) & evaluated(
        aud_eval, qrels_measure, frame.qrels_topics()
    )
    return both


def without_runs(frame: ComparisonFrame, kept: np.ndarray) -> ComparisonFrame:
    """The frame with only the runs `kept` says, the others named as left out."""
    pairs = list(zip(frame.runs, kept.tolist(), strict=True))
    return replace(
        frame,
        runs=tuple(run for run, keep in pairs if keep),
        runs_left_out=tuple(run for run, keep in pairs if not keep),
    )


def framed_means(
    evaluator: Evaluator, measure: Measure, topics: tuple[str, ...], *, complete: bool = False
) -> np.ndarray:
    """Means over `topics`; over every topic (no cut, the cached fast path) when those are all it labels."""
    whole = frozenset(topics) == evaluator.labelled_topics()
    return evaluator.means(measure, complete=complete, topics=None if whole else topics)


def aligned_matrices(
    ref_eval: Evaluator,
    aud_eval: Evaluator,
    frame: ComparisonFrame,
    measure: Measure,
    aud_measure: Measure | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-topic (topics × runs) matrices of both label sets over the topics both label, in the
    frame's order (`aud_measure`: the audited set's own form of the measure, e.g. at its own level)."""
    ref_m = ref_eval.per_topic(measure)[ref_eval.rows_of(frame.common)]
    aud_m = aud_eval.per_topic(aud_measure or measure)[aud_eval.rows_of(frame.common)]
    return ref_m, aud_m
