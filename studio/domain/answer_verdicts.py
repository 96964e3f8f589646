"""Verdicts on generated answers as the Gen-IR comparison's release publishes them, one per topic of
one system: relevant or not, a grade, the query and each subtopic satisfied or not, or a preference
against an exemplar passage asked in both orders.

`value` is what the verdict puts into its label set for the (topic, answer) pair, the number the
answers' leaderboard averages: 1/0, the grade, yes / (k + 1), 1 for a won topic (else 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from studio.domain.choices import AnswerMethod


class PreferenceOutcome(StrEnum):
    """An answer against the exemplar: it wins only when both orders pick it."""

    win = "win"
    tie = "tie"  # the two orders disagree
    loss = "loss"


@dataclass(frozen=True, slots=True)
class BinaryVerdict:
    qid: str
    line: int
    relevant: bool
    word: str  # as written (Yes, no, …)

    @property
    def value(self) -> float:
        return 1.0 if self.relevant else 0.0


@dataclass(frozen=True, slots=True)
class GradedVerdict:
    qid: str
    line: int
    grade: int

    @property
    def value(self) -> float:
        return float(self.grade)


@dataclass(frozen=True, slots=True)
class SubtopicVerdict:
    qid: str
    line: int
    entries: tuple[bool, ...]  # entry 0 is the query itself, 1..k the topic's subtopics

    @property
    def value(self) -> float:
        return sum(self.entries) / len(self.entries)


@dataclass(frozen=True, slots=True)
class ShownOrder:
    """One order of a preference: whether the answer was shown first and whether the first was picked."""

    version: str  # reg | rev, as the file names it
    answer_first: bool
    first_picked: bool  # the file's `a`
    line: int

    @property
    def answer_picked(self) -> bool:
        return self.answer_first == self.first_picked


@dataclass(frozen=True, slots=True)
class PreferenceVerdict:
    qid: str
    line: int  # of the topic's first line
    exemplar: str  # the docid of the passage the answer was compared with (the `qrel` side)
    system_id: str  # the release's own id for the answering system (the `gen` side)
    orders: tuple[ShownOrder, ShownOrder]  # in the file's order

    @property
    def outcome(self) -> PreferenceOutcome:
        picked = [order.answer_picked for order in self.orders]
        return (
            PreferenceOutcome.win
            if all(picked)
            else PreferenceOutcome.loss
            if not any(picked)
            else PreferenceOutcome.tie
        )

    @property
    def value(self) -> float:
        return 1.0 if self.outcome is PreferenceOutcome.win else 0.0


AnswerVerdict = BinaryVerdict | GradedVerdict | SubtopicVerdict | PreferenceVerdict

# The layouts a file of verdicts comes in (every answer method but the studio's own embedding and tournament).
VERDICT_LAYOUTS = (AnswerMethod.binary, AnswerMethod.graded, AnswerMethod.subtopics, AnswerMethod.preferences)
