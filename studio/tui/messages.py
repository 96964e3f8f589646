"""Messages that thread workers post to the screens; widgets change only in their handlers.

Each carries the domain objects a worker produced, never copies of their fields. Progress
messages replace one another (`can_replace`), so a flood of progress events from a fast judge
collapses into one repaint.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from textual.message import Message

if TYPE_CHECKING:  # annotations only: importing the sessions would load numpy and every session's
    # services before the first screen shows (the Review screen needs only its own); the domain
    # modules would build every screen's dataclasses, milliseconds a module
    from studio.domain.answer_results import AnswerCard, AnswerFigures
    from studio.domain.campaigns import CampaignPairView
    from studio.domain.judging import JudgeConfig, JudgeProgress, JudgeSummary
    from studio.domain.rows import Decision, FailureRow, JudgeRunRow
    from studio.domain.significance import Significance
    from studio.domain.significance_matrix import DecisionGrid
    from studio.domain.team import SyncResult
    from studio.domain.views import (
        AuditPairView,
        BankView,
        CalibrationView,
        EstimateView,
        LeaderboardView,
        Overview,
        PairView,
        ProjectNames,
        Stats,
    )
    from studio.services.project import AnswerSession, AuditSession, CampaignSession, ReviewSession

Pair = tuple[str, str]  # (qid, docid)

SessionT = TypeVar("SessionT")
StepT = TypeVar("StepT")
WrittenT = TypeVar("WrittenT")
AfterT = TypeVar("AfterT")


def key_of(pair: Mapping[str, Any]) -> Pair:
    """The (qid, docid) of a queue entry."""
    return str(pair["qid"]), str(pair["docid"])


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
    """The review queue was built (or rebuilt after a filter change), with τ, κ, the last decisions
    and the views of the first pairs."""

    session: ReviewSession
    stats: Stats
    history: Sequence[Decision]
    views: list[PairView]


@dataclass
class ReviewRefreshed(Message):
    """τ, κ and the last decisions read again (another process wrote to the project)."""

    session: ReviewSession
    stats: Stats
    history: Sequence[Decision]
    landed: int  # the screen's count of saved decisions when they were asked for


@dataclass
class PairRead(Message):
    """What Review shows of one pair, read off the UI thread (or why it could not be read)."""

    session: ReviewSession
    pair: Pair
    view: PairView | None
    error: str | None = None
    generation: int = 0  # the screen's count of label changes when it was asked for


@dataclass
class StepWritten(Message, Generic[SessionT, StepT, WrittenT, AfterT]):
    """A session's step was saved (`SessionScreen`): what the write answered (the decision as
    logged; for an undo, what it took back, None when there was nothing), and what the worker read
    after it under the same lock (Review: τ, κ and the last decisions; None elsewhere)."""

    session: SessionT
    step: StepT
    written: WrittenT
    after: AfterT


@dataclass
class StepsNotSaved(Message, Generic[SessionT, StepT]):
    """A session's step could not be saved; `steps` holds it first, then the ones queued after it,
    which were cancelled: the screen takes them all back."""

    session: SessionT
    steps: list[StepT]
    error: str


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
    failures: list[FailureRow]


@dataclass
class GradersLoaded(Message):
    """The rubric label sets graded with a bank (the choices of the Bank screen's `graded by`)."""

    bank: str
    graders: list[str]


@dataclass
class BankEdited(Message):
    """An audited edit of a bank was saved (`what`: add, edit, delete, weight, merge), or why not."""

    bank: str
    what: str
    error: str | None = None


@dataclass
class AuditOpened(Message):
    """A blind audit's sample and the grades it has were read, and the first pairs' texts."""

    session: AuditSession
    views: list[AuditPairView]


@dataclass
class AuditPairRead(Message):
    """The query and passage of one audit pair, read off the UI thread (or why they could not be)."""

    session: AuditSession
    pair: Pair
    view: AuditPairView | None
    error: str | None = None


@dataclass
class AnswersOpened(Message):
    """An answers label set's verdicts, the checks that stand, the leaderboard and τ between methods,
    and the first answers' cards."""

    session: AnswerSession
    figures: AnswerFigures
    cards: dict[Pair, AnswerCard]  # by (qid, system)


@dataclass
class AnswerCardRead(Message):
    """One answer's card read off the UI thread (or why it could not be)."""

    session: AnswerSession
    key: Pair  # (qid, system)
    card: AnswerCard | None
    error: str | None = None


@dataclass
class AuditsListed(Message):
    """The project's audits, for `b` on Review to choose from (or to say there is none)."""

    audits: list[str]


@dataclass
class CalibrationRead(Message):
    """The calibration curve of the audited label set, or None when it is not calibrated."""

    qrels: str
    view: CalibrationView | None


@dataclass
class SignificanceComputed(Message):
    """Every run pair tested under both label sets, laid out in the reference's order; `plan`
    names what was asked for (test, correction, α), so that a result asked for before is ignored."""

    plan: tuple[str, str, float]
    result: Significance
    grid: DecisionGrid


@dataclass
class JudgeRunsLoaded(Message):
    """Every judge run of the project, oldest first."""

    runs: list[JudgeRunRow]


@dataclass
class JudgeRunChosen(Message):
    """A past judge run was chosen: its label set's configuration, to fill the form, and its failures."""

    label_set: str
    config: JudgeConfig
    failures: list[FailureRow]


@dataclass
class ChangesNoticed(Message):
    """Another process wrote to the project; the leaderboards in memory are already up to date."""

    description: str


@dataclass
class EstimateComputed(Message):
    """The leaderboard full human judging would give, estimated from the audited set and the gold one."""

    view: EstimateView


@dataclass
class TeamSynced(Message):
    """The team's background sync ran: its result, or why it could not (and when, as HH:MM:SS)."""

    result: SyncResult | None
    error: str | None
    at: str
    rejected: bool = False  # the server rejected the copy (its login, its role's rights): not offline


@dataclass
class CampaignOpened(Message):
    """A campaign's pairs given to the person, what they graded, and every pair's texts."""

    session: CampaignSession
    views: dict[Pair, CampaignPairView]


@dataclass
class CampaignGradesRead(Message):
    """The pairs the person's grades stand on now, as the project has them (others' writes too)."""

    session: CampaignSession
    graded: set[Pair]
