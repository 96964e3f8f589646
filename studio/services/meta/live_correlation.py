"""The live view's correlation after an edit, without working out again what the edit cannot change.

An edit of the audited label set changes one topic's values on its side, nothing on the
reference's. So the live form of `rank_correlation.correlation` (details=False) keeps, per
comparison, what depends on the reference alone (its leaderboard, the runs some topic of the frame
evaluates there, its pair orderings, ranks and ranking: `ReferenceBoard`) and the frame, which
depends on the labelled topics of both sides. Each call checks them against the evaluators (their
identity and change counters) and computes the audited side only: its leaderboard, and which runs
some topic evaluates on it (a measure such as Compat has no value on a topic without a positive
grade, so one edit can change that). Whenever anything else moved, the full computation runs and
its parts are kept again. The figures are those of the full computation, bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from studio.domain.frames import ComparisonFrame, TopicChoice
from studio.metrics.evaluator import Evaluator
from studio.metrics.names import Measure
from studio.metrics.reference_board import ReferenceBoard
from studio.services.evaluation.engine import EvaluationEngine

LiveKey = tuple[str, str, Measure, Measure, TopicChoice, bool]


@dataclass(frozen=True)
class LiveSides:
    """What one comparison keeps between edits of its audited side."""

    ref: Evaluator
    ref_version: int
    qrels: Evaluator
    qrels_topics_version: int
    frame: ComparisonFrame  # the runs no topic evaluates on both sides left out
    qrels_means_topics: tuple[str, ...] | None  # the topics the audited means are over (None: all it labels)
    qrels_rows: np.ndarray  # the rows of the audited side's frame topics
    ref_evaluated: np.ndarray  # per run of the frame's first form: a frame topic evaluates it on the reference side
    kept: np.ndarray  # the runs kept the last time
    board: ReferenceBoard  # the reference leaderboard over the kept runs

    def current(self, ref: Evaluator, qrels: Evaluator) -> bool:
        return (
            ref is self.ref
            and ref.version == self.ref_version
            and qrels is self.qrels
            and qrels.topics_version == self.qrels_topics_version
        )


def evaluated_on(evaluator: Evaluator, measure: Measure, rows: np.ndarray) -> np.ndarray:
    """Per run: some of the topics at `rows` evaluates it (its value there is a number)."""
    return np.asarray((~np.isnan(evaluator.per_topic(measure)[rows])).any(axis=0))


def audited_side(engine: EvaluationEngine, key: LiveKey) -> tuple[LiveSides, np.ndarray] | None:
    """The kept sides of the comparison `key` and the audited leaderboard over the kept runs, when
    what is kept still holds; None when the full computation must run."""
    ref_name, qrels_name, _, aud_measure, _, complete = key
    sides = engine.kept_views.get(key)
    if not isinstance(sides, LiveSides):
        return None
    ref, qrels = engine.evaluator(ref_name), engine.evaluator(qrels_name)
    if not sides.current(ref, qrels):
        return None
    evaluated = evaluated_on(qrels, aud_measure, sides.qrels_rows)
    if not evaluated.any():  # no topic left to evaluate a run on: the full computation says so
        return None
    # The runs kept: those some topic evaluates on both sides (all of them for trec_eval -c).
    kept = np.ones(len(evaluated), dtype=bool) if complete else sides.ref_evaluated & evaluated
    if not np.array_equal(kept, sides.kept):
        return None
    y = qrels.means(aud_measure, complete=complete, topics=sides.qrels_means_topics)
    return sides, (y if sides.kept.all() else y[sides.kept])


def keep_sides(engine: EvaluationEngine, key: LiveKey, sides: LiveSides) -> None:
    engine.kept_views[key] = sides
