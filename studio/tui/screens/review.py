"""Review: one disagreement at a time; a key decides, the next pair shows at once, and the decision
is saved behind it.

A key never waits for the project file. It is applied to the session's queue on the UI thread
(the next pair shows, the history lists the decision as saving), and the write runs in a worker,
one decision after another in the order of the keys (`InOrder`). When a write lands, τ, κ and the
history come from the worker; when it fails, the dialog says why and the screen takes the decision
back (and the ones typed after it), so the pair shows again. What is shown of a pair (texts, the
judges' outputs, the runs it moves) is read ahead in a worker too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Header, Static

from studio.domain.errors import StudioError, UsageError
from studio.domain.rows import LABEL_ACTIONS, Decision
from studio.domain.steps import ReviewStep
from studio.domain.views import ReviewFilters, Stats
from studio.services.project import ReviewSession
from studio.tui.bindings import bindings_of
from studio.tui.first_frame import FirstFrame
from studio.tui.in_order import InOrder
from studio.tui.messages import (
    PairRead,
    ReviewDecided,
    ReviewLoaded,
    ReviewRefreshed,
    StepsNotSaved,
    StepWritten,
    key_of,
)
from studio.tui.screens.review_text import FILTER_HINT, HELP, READ_AHEAD, status_line
from studio.tui.screens.session import SessionScreen
from studio.tui.widgets.footer import StudioFooter
from studio.tui.widgets.pair_panel import PairPanel
from studio.tui.widgets.review_history import HistoryList, history_rows
from studio.tui.widgets.text_prompt import TextPrompt
from studio.tui.widgets.view_cache import ViewCache

Figures = tuple[Stats, Sequence[Decision]]  # τ and κ, and the last decisions, read after a write


class ReviewScreen(SessionScreen[ReviewSession, ReviewStep, Decision | None, Figures]):
    TITLE = "Review"
    HELP = HELP
    BINDINGS = bindings_of("review")
    DEFAULT_CSS = """
    ReviewScreen #status { padding: 0 1; background: $boost; }
    ReviewScreen #pair { width: 1fr; height: 1fr; padding: 0 1; }
    ReviewScreen #pair-head { margin-bottom: 1; }
    ReviewScreen #passage { margin-bottom: 1; border: round $primary-darken-2; padding: 0 1; }
    ReviewScreen #grades { margin-bottom: 1; }
    ReviewScreen #sidebar { width: 38; border-left: solid $primary-darken-2; }
    ReviewScreen DataTable { height: auto; max-height: 12; margin-bottom: 1; }
    ReviewScreen #history { width: 1fr; height: 1fr; padding: 0 1; }
    ReviewScreen #why { height: auto; border-top: solid $primary-darken-2; padding: 0 1; }
    ReviewScreen #why > Static { width: 1fr; height: auto; margin-top: 1; }
    """
    WRITES = "review-writes"
    UNIT = ("decision", "typed")
    NOTHING_TO_UNDO = "nothing to undo in this review"

    def __init__(self) -> None:
        super().__init__()
        self.loaded = False
        self.stats = Stats(None, None)
        self.history: Sequence[Decision] = []
        self.reads: InOrder[tuple[ReviewSession, Mapping[str, Any], int]] = InOrder()
        self.waiting: ReviewSession | None = None  # a queue to build once the decisions are saved
        self.landed = 0  # decisions saved: figures read before the newest one are older than its own
        self.views = ViewCache()
        self.first_frame = FirstFrame()  # the screen drawn once its first pair is in

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Building the review queue…", id="status")
        with Horizontal(id="body") as body:
            # Shown with the first pair: an empty panel and list laid out and drawn while the
            # queue is built are work for nobody (about 8 ms of the start).
            body.display = False
            yield PairPanel(id="pair")
            with Vertical(id="sidebar"):
                yield Static("[b]Last decisions[/b] (enter: decide again)")
                yield HistoryList(id="history")
        yield StudioFooter()

    def start(self) -> None:
        self.first_frame.hold(self.app)
        self.reload(self.state.take_review_filters())
        if self.session is None:  # nothing to build: what the status says is all there is
            self.first_frame.show()

    def resumed(self) -> None:
        asked = self.state.take_review_filters()  # another screen sent the auditor to a slice
        if asked is not None:
            self.reload(asked)
            return
        self.state.review_return = None  # shown by its own key: nothing to go back to
        selection, session = self.selection, self.session
        chosen = (selection.ref, selection.qrels, selection.measure)
        # An audit's conflicts are reviewed against the audit's own label sets, whatever is chosen.
        if session is None or (
            session.filters.conflicts is None and (session.ref, session.qrels, session.measure) != chosen
        ):
            self.reload()
        elif self.loaded:
            self.refresh_figures(session, self.landed)  # labels may have changed elsewhere (a judge, a bank edit)

    # -- loading ---------------------------------------------------------------------------------

    def reload(self, filters: ReviewFilters | None = None) -> None:
        selection = self.selection
        self.loaded = False
        if selection.ref is None or selection.qrels is None:
            self.query_one("#status", Static).update(
                "Review needs two label sets: import or judge one, then choose them on the Leaderboard (F3)."
            )
            return
        try:
            session = self.project.review(
                selection.ref,
                selection.qrels,
                measure=selection.measure,
                filters=filters,
                person=self.state.person,
                topics=selection.topics,
            )
        except UsageError as error:
            self.query_one("#status", Static).update(f"{escape(str(error))}: choose them on the Leaderboard (F3).")
            return
        self.session = session
        self.views.clear()
        self.reads.drop()
        self.query_one("#status", Static).update("Building the review queue…")
        if self.pending:  # decisions still being saved go into the log first: the new queue leaves them out
            self.waiting = session
        else:
            self.build_queue(session)

    def build_when_saved(self) -> None:
        if self.waiting is not None and not self.pending:
            session, self.waiting = self.waiting, None
            self.build_queue(session)

    @work(thread=True, exclusive=True, group="review", exit_on_error=False)
    def build_queue(self, session: ReviewSession) -> None:
        # The queue's Δτ per pair needs many leaderboard updates: off the UI thread, under the lock
        # so that no other worker touches the same evaluators meanwhile.
        with self.locked():
            session.load()
            stats, history = session.stats(), session.history()
            views = session.pair_views(session.upcoming(READ_AHEAD))  # the first pairs, in one read
        self.post_message(ReviewLoaded(session, stats, history, views))

    def work_failed(self, group: str, error: BaseException) -> None:
        if group == "review":
            self.query_one("#status", Static).update(f"[red]No review queue:[/red] {escape(str(error))}")
            self.first_frame.show()

    @on(ReviewLoaded)
    def show_queue(self, message: ReviewLoaded) -> None:
        if message.session is not self.session:
            return  # a queue built for choices that changed meanwhile
        self.loaded = True
        self.stats, self.history = message.stats, message.history
        for view in message.views:
            self.views.keep(view)
        self.query_one("#body").display = True
        self.repaint()
        self.first_frame.show()

    @work(thread=True, group="review-figures", exit_on_error=False)
    def refresh_figures(self, session: ReviewSession, landed: int) -> None:
        with self.locked():
            stats, history = session.stats(), session.history()
        self.post_message(ReviewRefreshed(session, stats, history, landed))

    @on(ReviewRefreshed)
    def show_figures(self, message: ReviewRefreshed) -> None:
        if message.session is self.session:
            if message.landed == self.landed and not self.pending:  # else a write's figures are newer
                self.stats, self.history = message.stats, message.history
            self.repaint()
            self.labels_changed()

    def project_changed(self) -> None:
        if self.session is not None and self.loaded:
            self.refresh_figures(self.session, self.landed)

    # -- reading pairs ahead ---------------------------------------------------------------------

    def read_ahead(self) -> None:
        """Ask for the views the next keys will show: the current pair's as the labels are now,
        the ones after it if never read."""
        session = self.session
        if session is None or not self.loaded:
            return
        wanted = self.views.wanted(session.upcoming(READ_AHEAD))
        for pair in wanted:
            if self.reads.add((session, pair, self.views.generation)):
                self.read_views()

    @work(thread=True, group="review-views", exit_on_error=False)
    def read_views(self) -> None:
        # One reader at a time, as one writer: a worker waiting for the file holds a thread of the
        # pool all workers share, and a reader per key could leave none for the writer.
        try:
            while (item := self.reads.take()) is not None:
                session, pair, generation = item
                if generation != self.views.generation:  # asked for before the labels changed again
                    self.post_message(PairRead(session, key_of(pair), None, generation=generation))
                    continue
                try:
                    with self.locked():
                        view = session.pair_view(pair)
                except StudioError as error:  # the file is kept elsewhere: said on the panel, asked again later
                    self.post_message(PairRead(session, key_of(pair), None, str(error), generation))
                    continue
                self.post_message(PairRead(session, key_of(pair), view, generation=generation))
        except BaseException:
            self.reads.abandon()
            raise

    @on(PairRead)
    def pair_read(self, message: PairRead) -> None:
        if message.session is not self.session:
            return
        self.views.take(message.pair, message.generation, message.view, message.error)
        current = self.session.current()
        if current is not None and key_of(current) == message.pair:
            self.show_pair()

    def labels_changed(self) -> None:
        """The views read so far are of labels that changed: the current pair's is read again."""
        self.views.generation += 1
        self.read_ahead()

    # -- rendering -------------------------------------------------------------------------------

    def repaint(self) -> None:
        """Show the session's current pair, the history and the statistics, from memory only."""
        self.show_status()
        self.show_pair()
        self.show_history()
        self.read_ahead()

    def show_status(self) -> None:
        if self.session is not None:
            self.query_one("#status", Static).update(status_line(self.session, self.stats, len(self.pending)))

    def show_history(self) -> None:
        self.query_one(HistoryList).show(history_rows(self.pending, self.history))

    def show_pair(self) -> None:
        session = self.session
        if session is None:
            return
        panel = self.query_one(PairPanel)
        current = session.current()
        if current is None:
            panel.show(None, session.ref, session.qrels)
            return
        view = self.views.view(key_of(current))
        if view is not None:
            panel.show(session.marked(view), session.ref, session.qrels)
        else:
            panel.show_reading(current, session.ref, session.qrels, self.views.unread.get(key_of(current)))

    # -- decisions -------------------------------------------------------------------------------

    def _decide(self, action: str, *, grade: float | None = None, note: str | None = None) -> None:
        """Apply a decision to the queue and repaint at once; the write follows in order."""
        session = self.ready()
        if session is not None:
            self.decide(session, lambda ready: ready.decide(action, grade=grade, note=note))

    def ready(self) -> ReviewSession | None:
        return self.session if self.loaded else None

    def after_write(self, session: ReviewSession) -> Figures:
        return session.stats(), session.history()

    def step_saved(self, message: StepWritten[ReviewSession, ReviewStep, Decision | None, Figures | None]) -> None:
        session = message.session
        self.landed += 1
        self.build_when_saved()
        if session is not self.session:
            return
        assert message.after is not None  # Review reads its figures after every write
        self.stats, self.history = message.after
        self.tell_nothing_undone(message)
        self.show_status()
        self.show_history()
        if message.step.action in ("flag", "note", "undo"):
            self.show_pair()  # its marks, or (an undo) the pair it brought back
        if message.step.action in (*LABEL_ACTIONS, "undo"):
            self.labels_changed()  # grades and rank moves of the pair shown are read again
        self.post_message(ReviewDecided(message.step.action, self.stats))

    def steps_not_saved(self, message: StepsNotSaved[ReviewSession, ReviewStep]) -> None:
        self.build_when_saved()
        if message.session is self.session:
            self.repaint()

    def action_grade(self, grade: int) -> None:
        self._decide("grade", grade=float(grade))

    def action_accept(self) -> None:
        self._decide("accept")

    def action_keep_reference(self) -> None:
        self._decide("reference")

    def action_skip(self) -> None:
        self._decide("skip")

    def action_flag(self) -> None:
        self._decide("flag")

    def action_go(self, step: int) -> None:
        if self.loaded and self.session is not None:
            self.session.go(step)
            self.repaint()

    def action_note(self) -> None:
        pair = self.session.current() if self.session is not None and self.loaded else None
        if pair is None:
            return

        def save(text: str | None) -> None:
            if text:
                self._decide("note", note=text)

        self.app.push_screen(TextPrompt(f"Note on {pair['qid']} {pair['docid']}"), save)

    def action_filter(self) -> None:
        def apply(text: str | None) -> None:
            if text is None:
                return  # cancelled: the queue stays as it is (empty: every disagreement)
            try:
                filters = ReviewFilters.parse(text)
            except UsageError as error:
                self.notify(str(error), severity="warning")
                return
            self.reload(filters)

        self.app.push_screen(TextPrompt(FILTER_HINT), apply)

    def action_back(self) -> None:
        """Back where the auditor came from (the significance matrix), once; else nothing to leave."""
        target, self.state.review_return = self.state.review_return, None
        if target is None:
            self.notify("Review is a screen of its own: F2–F7 switch screens.", timeout=3)
            return
        self.app.switch_mode(target)

    def action_blind_audit(self) -> None:
        from studio.tui.screens.audit import AuditScreen  # imported when a blind audit is asked for
        from studio.tui.screens.audit_picker import AuditPicker

        def open_audit(name: str | None) -> None:
            if name:
                self.app.push_screen(AuditScreen(name))

        self.app.push_screen(AuditPicker(self.selection.qrels), open_audit)

    @on(HistoryList.Chosen)
    def decide_again(self, event: HistoryList.Chosen) -> None:
        if self.session is None:
            return
        _, qid, docid = event.key.split("|", 2)
        if not qid:
            return  # an undo not saved yet: its pair is not known
        self.session.revisit(qid, docid)
        self.query_one(PairPanel).focus()
        self.repaint()
