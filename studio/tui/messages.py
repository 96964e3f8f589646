"""Messages that thread workers post to the app; widgets change only in their handlers.

Progress messages can replace one another (`can_replace`), so a flood of progress events from a
fast judge collapses into one repaint.
"""

from __future__ import annotations

from typing import Any

from textual.message import Message

from studio.services.views.overview import Overview


class OverviewLoaded(Message):
    """A fresh Overview was read from the project file."""

    def __init__(self, overview: Overview) -> None:
        super().__init__()
        self.overview = overview


class LeaderboardComputed(Message):
    """Both leaderboards, their correlation and the label agreement, for the chosen label sets."""

    def __init__(self, correlation: dict[str, Any], agreement: dict[str, Any] | None) -> None:
        super().__init__()
        self.correlation = correlation
        self.agreement = agreement


class ReviewLoaded(Message):
    """The review queue was built (or rebuilt after a filter change)."""


class BankLoaded(Message):
    """A topic's items with their coverage and the stale cells of the chosen rubric label set."""

    def __init__(self, report: dict[str, Any] | None, items: list[dict[str, Any]], stale: list[dict[str, Any]],
                 tau: float | None) -> None:
        super().__init__()
        self.report = report
        self.items = items
        self.stale = stale
        self.tau = tau


class JudgeProgressed(Message):
    """How far a judge run is; only the newest one matters."""

    def __init__(self, done: int, total: int, calls: int, cache_hits: int, failures: int, rate: float,
                 eta: float | None) -> None:
        super().__init__()
        self.done, self.total, self.calls, self.cache_hits = done, total, calls, cache_hits
        self.failures, self.rate, self.eta = failures, rate, eta

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, JudgeProgressed)


class JudgeFinished(Message):
    """A judge run ended: its summary, or None when it was cancelled or failed."""

    def __init__(self, summary: dict[str, Any] | None, label_set: str, error: str | None = None) -> None:
        super().__init__()
        self.summary = summary
        self.label_set = label_set
        self.error = error  # why the run stopped, when it failed
