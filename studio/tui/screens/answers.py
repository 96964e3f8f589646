"""Answers: an answers label set's verdicts checked one (topic, system) at a time. The answer shows
beside what its verdict was made of (the exemplar it met, the Best passages it was compared with,
or the topic's subtopics), with every answers label set's verdict on it; `k` keeps the verdict as a
person's, a grade key overrides it on the set's scale, `u` takes the last check back. Each check is
saved behind the key in order (the next answer shows at once), and the answers' leaderboard and τ
between methods are read again after each one lands."""

from __future__ import annotations

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Header, Static

from studio.domain.answer_results import AnswerCard, AnswerFigures, AnswerSaved
from studio.domain.choices import ScreenName
from studio.domain.errors import StudioError, UsageError
from studio.domain.steps import AnswerStep
from studio.services.project import AnswerSession, Project
from studio.tui.bindings import bindings_of
from studio.tui.in_order import InOrder
from studio.tui.messages import AnswerCardRead, AnswersOpened, Pair, StepsNotSaved, StepWritten
from studio.tui.screens.answers_text import (
    answer_text,
    beside_text,
    figures_table,
    head_text,
    status_line,
    verdicts_line,
)
from studio.tui.screens.session import SessionScreen
from studio.tui.widgets.footer import StudioFooter

HELP = """Answers checks an answers label set (`studio judge --answers`, `studio import answer-labels`)
one generated answer at a time, topic by topic: the answer on the left; on the right what its
verdict was made of (the exemplar passage and what each order picked, the Best passages an
embedding compared it with, or the topic's subtopics, each satisfied or not); above it every answers
label set's verdict on it. `k` keeps the verdict (it stands as yours), a grade key overrides it on
the set's scale (binary, subtopics and preferences 0 or 1, graded 0 to the scale); each check is an
audited edit of the set (`studio history`, `studio undo`), and the leaderboard and τ between the
methods below follow it. `u` takes back your last check, `[`/`]` step without checking, `m` checks
the next answers label set. Reopening starts at the first answer nobody has checked."""

READ_AHEAD = 3  # answers whose cards are read before they are current
Figures = AnswerFigures


class AnswersScreen(SessionScreen[AnswerSession, AnswerStep, AnswerSaved | None, Figures]):
    TITLE = "Answers"
    HELP = HELP
    BINDINGS = bindings_of("answers")
    DEFAULT_CSS = """
    AnswersScreen #answers-pair { height: 1fr; }
    AnswersScreen #answers-answer-pane, AnswersScreen #answers-beside-pane { width: 1fr; padding: 0 1; }
    AnswersScreen #answers-figures { height: auto; max-height: 14; }
    """
    WRITES = "answers-writes"
    NOTHING_TO_UNDO = "no check of this answers label set to take back"
    WHAT, OPENING = "answers", "answers"
    UNIT = ("check", "made")
    LEAVING = "Saving the last checks, then back to the Overview."

    def __init__(self) -> None:
        super().__init__()
        self.cards: dict[Pair, AnswerCard] = {}  # what a card shows does not change with a check: read once
        self.unread: dict[Pair, str] = {}
        self.asked: set[Pair] = set()
        self.reads: InOrder[tuple[AnswerSession, Pair]] = InOrder()
        self.figures: Figures | None = None
        self.checkable: list[str] = []  # the answers label sets `m` steps through
        self.keep_at: Pair | None = None  # the answer to show again when the set is read afresh

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(f"Opening the {self.WHAT}…", id="status")
        yield Static("", id="answers-head")
        yield Static("", id="answers-verdicts")
        with Horizontal(id="answers-pair"):
            with VerticalScroll(id="answers-answer-pane"):
                yield Static("", id="answers-answer")
            with VerticalScroll(id="answers-beside-pane"):
                yield Static("", id="answers-beside")
        yield Static("", id="answers-figures")
        yield StudioFooter()

    # -- opening ---------------------------------------------------------------------------------

    def opening(self, project: Project) -> AnswersOpened:
        session = self.open_set(project, self.state.answers)
        if self.keep_at in session.keys:  # read afresh: at the same answer
            session.position = session.keys.index(self.keep_at)
        cards = {key: session.card(key) for key in session.upcoming(1)}  # the rest read ahead after
        return AnswersOpened(session, session.figures(), cards)

    def open_set(self, project: Project, name: str | None) -> AnswerSession:
        """The session of set `name`, else of the first answers label set that can be checked."""
        names = [name] if name is not None else project.answer_sets()
        refusals = []
        for candidate in names:
            session = project.check_answers(candidate, person=self.state.person)
            try:
                session.load()
            except UsageError as refused:  # a tournament's verdicts are its matches: the next set
                if name is not None:
                    raise
                refusals.append(str(refused))
                continue
            return session
        raise UsageError(
            "the project has no answers label set to check: judge its answers "
            "(`studio judge --answers --method umbrela`) or import verdicts (`studio import answer-labels`)"
            + (f"; {'; '.join(refusals)}" if refusals else "")
        )

    @on(AnswersOpened)
    def opened(self, message: AnswersOpened) -> None:
        session = message.session
        self.session, self.figures = session, message.figures
        self.state.answers = session.label_set
        self.checkable = sorted([session.label_set, *session.others])
        self.cards.update(message.cards)
        self.repaint()

    # -- reading cards ahead ---------------------------------------------------------------------

    def read_ahead(self) -> None:
        session = self.session
        if session is None:
            return
        known = self.cards.keys() | self.asked
        for key in session.upcoming(READ_AHEAD):
            if key not in known:
                self.asked.add(key)
                if self.reads.add((session, key)):
                    self.read_cards()

    @work(thread=True, group="answers-cards", exit_on_error=False)
    def read_cards(self) -> None:
        # One reader at a time, as the blind audit's: readers waiting for the file must not take
        # every thread of the pool the writer needs too.
        try:
            while (item := self.reads.take()) is not None:
                session, key = item
                try:
                    with self.locked():
                        card = session.card(key)
                except StudioError as error:  # said on the screen, asked again when shown again
                    self.post_message(AnswerCardRead(session, key, None, str(error)))
                    continue
                self.post_message(AnswerCardRead(session, key, card))
        except BaseException:
            self.reads.abandon()
            raise

    @on(AnswerCardRead)
    def card_read(self, message: AnswerCardRead) -> None:
        if message.session is not self.session:
            return
        self.asked.discard(message.key)
        if message.card is not None:
            self.cards[message.key] = message.card
            self.unread.pop(message.key, None)
        elif message.error is not None:
            self.unread[message.key] = message.error
        self.repaint()

    # -- rendering -------------------------------------------------------------------------------

    def status_text(self, session: AnswerSession) -> str:
        return status_line(session, len(self.pending))

    def paint(self, session: AnswerSession) -> None:
        """The current answer, what stands beside it and the figures, from memory."""
        key = session.current()
        head = self.query_one("#answers-head", Static)
        if key is None:
            head.update(f"[b]{escape(session.label_set)} holds no verdict on an answer.[/b]")
            return
        card = self.cards.get(key)
        error = self.unread.get(key)
        head.update(head_text(session, key, card) + (f"\n[red]not read yet:[/red] {escape(error)}" if error else ""))
        self.query_one("#answers-verdicts", Static).update(verdicts_line(session, key))
        self.query_one("#answers-answer", Static).update(answer_text(card))
        self.query_one("#answers-beside", Static).update(beside_text(card))
        self.query_one("#answers-figures", Static).update(figures_table(self.figures))
        self.read_ahead()

    # -- what a check moves ----------------------------------------------------------------------

    def after_write(self, session: AnswerSession) -> Figures:
        return session.figures()

    def step_saved(self, message: StepWritten[AnswerSession, AnswerStep, AnswerSaved | None, Figures | None]) -> None:
        if message.session is self.session and message.after is not None:
            self.figures = message.after
        self.tell_nothing_undone(message)
        self.repaint()

    def steps_not_saved(self, message: StepsNotSaved[AnswerSession, AnswerStep]) -> None:
        self.repaint()

    def project_changed(self) -> None:
        """Another process wrote to the project (a judge, `studio undo`): read the set, the checks and
        the figures afresh, at the same answer, once this screen's own checks are saved."""
        session = self.session
        if session is None or self.pending:
            return
        self.keep_at = session.current()
        self.cards, self.unread, self.asked = {}, {}, set()
        self.start()

    # -- keys ------------------------------------------------------------------------------------

    def action_keep(self) -> None:
        if (session := self.taking_keys()) is not None:
            self.decide(session, lambda ready: ready.keep())

    def action_go(self, offset: int) -> None:
        if (session := self.taking_keys()) is not None:
            session.go(offset)
            self.repaint()

    def action_next_set(self) -> None:
        """Check the next answers label set (the checks still saving land in their own set)."""
        session = self.taking_keys()
        if session is None:
            return
        if len(self.checkable) < 2:
            self.notify("no other answers label set to check", severity="warning")
            return
        place = self.checkable.index(session.label_set) if session.label_set in self.checkable else -1
        self.state.answers = self.checkable[(place + 1) % len(self.checkable)]
        self.session, self.figures, self.keep_at = None, None, None
        self.cards, self.unread, self.asked = {}, {}, set()
        self.query_one("#status", Static).update(f"Opening the answers of {escape(self.state.answers)}…")
        self.start()

    def leave_now(self) -> None:
        """Back to the Overview (the Answers screen is a mode of its own, not a screen over another)."""
        self.leaving = False  # the screen stays, and is shown again by F7
        self.app.switch_mode(ScreenName.overview)
