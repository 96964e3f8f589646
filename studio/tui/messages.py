"""Messages that thread workers post to the screens; widgets change only in their handlers.

Each carries the domain objects a worker produced, never copies of their fields. Progress
messages replace one another (`can_replace`), so a flood of progress events from a fast judge
collapses into one repaint.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message

from studio.domain.judging import JudgeProgress, JudgeSummary
from studio.domain.views import BankView, EstimateView, LeaderboardView, Overview, ProjectNames, Stats
from studio.services.project import ReviewSession


@dataclass
class NamesLoaded(Message):
    """The label sets, banks and topics the selectors offer, read from the project file."""

    names: ProjectNames


@dataclass
class OverviewLoaded(Message):
    """A fresh Overview was read from the project file."""

    overview: Overview


@dataclass
class LeaderboardComputed(Message):
    """Both leaderboards, their correlation and the label agreement, for the chosen label sets."""

    view: LeaderboardView


@dataclass
class ReviewLoaded(Message):
    """The review queue was built (or rebuilt after a filter change)."""

    session: ReviewSession


@dataclass
class BankLoaded(Message):
    """A topic's items with, under a chosen rubric judge, their coverage and stale cells."""

    view: BankView


@dataclass
class JudgeProgressed(Message):
    """How far a judge run is; only the newest one matters."""

    progress: JudgeProgress

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, JudgeProgressed)


@dataclass
class JudgeFinished(Message):
    """A judge run ended: its summary, or None when it was cancelled or failed (with the error)."""

    label_set: str
    summary: JudgeSummary | None
    error: str | None = None


@dataclass
class ReviewDecided(Message):
    """A review key was handled: the action it logged (None for a move without one) and τ and κ now."""

    action: str | None
    stats: Stats


@dataclass
class FailuresLoaded(Message):
    """The newest judge run's recorded failures of a label set, with the raw outputs."""

    label_set: str
    failures: list[dict[str, Any]]


@dataclass
class GradersLoaded(Message):
    """The rubric label sets graded with a bank (the choices of the Bank screen's `graded by`)."""

    bank: str
    graders: list[str]


@dataclass
class BankEdited(Message):
    """An audited edit of a bank was saved (`what`: add, edit, delete, weight, merge)."""

    bank: str
    what: str


@dataclass
class EstimateComputed(Message):
    """The leaderboard full human judging would give, estimated from the audited set and the gold one."""

    view: EstimateView
