"""Review: one disagreement at a time; a key decides, saves and moves on."""

from __future__ import annotations

from collections.abc import Callable

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Footer, Header, Static

from studio.domain.errors import ProjectBusy, UsageError
from studio.domain.views import ReviewFilters, Stats
from studio.services.project import ReviewSession
from studio.tui.messages import ReviewDecided, ReviewLoaded
from studio.tui.screens.audit import AuditPicker, AuditScreen
from studio.tui.screens.base import StudioScreen, grade_bindings
from studio.tui.widgets.pair_panel import PairPanel, number
from studio.tui.widgets.table import Table
from studio.tui.widgets.text_prompt import TextPrompt

HELP = """Review steps through the pairs the audited label set (an LLM's) and the reference (the
human one) grade differently, the pairs that move the leaderboard most first. A key decides and
moves on; every decision is saved at once as an audited label edit of the audited set, so the
Kendall τ between the two leaderboards and Cohen's κ in the header are current after every key
(their change since the review opened is in brackets).

The passage shows the query's terms in bold and the answers extracted for test-bank items
underlined. Below it: every judge's grade of the pair with its confidence and raw output, the
item grades, and why the pair matters: the runs that retrieved the passage (with its rank in
each) and the runs whose place in the audited leaderboard would change if the pair took the
reference grade (place now → then). The sidebar lists the last decisions: select one and press `enter` to decide it
again. Choose the label sets and the measure on the Leaderboard screen (`F3`); `/` narrows the
queue to a topic, a run or a grade pair (e.g. `topic 1003`, `run lexical-bm25`, `3 0`). `b` opens a
blind audit: an audit sample's pairs in their random order, the LLM's grade hidden until graded."""


def _signed(value: float | None) -> str:
    return "" if value is None else f" ({value:+.3f})"


def status_line(session: ReviewSession, stats: Stats) -> str:
    total = len(session.queue)
    where = "queue done" if session.done else f"pair {session.position + 1} of {total}"
    return (
        f"[b]{session.qrels}[/b] against [b]{session.ref}[/b] · {session.filters.describe()} · {where} · "
        f"{session.decisions_made} decided · τ {number(stats.tau)}{_signed(stats.tau_change)} · "
        f"κ {number(stats.kappa)}{_signed(stats.kappa_change)}"
    )


class ReviewScreen(StudioScreen):
    TITLE = "Review"
    HELP = HELP
    BINDINGS = [
        *grade_bindings("review", "Set grade {grade} in the audited label set and go on"),
        Binding("a", "accept", "Accept LLM", id="review.accept", tooltip="Keep the audited (LLM) label and go on"),
        Binding(
            "h",
            "keep_reference",
            "Keep human",
            id="review.reference",
            tooltip="Give the audited set the reference grade and go on",
        ),
        Binding("s", "skip", "Skip", id="review.skip", tooltip="Decide later (skipped pairs come last)"),
        Binding("f", "flag", "Flag", id="review.flag", tooltip="Mark the pair for a second look"),
        Binding("n", "note", "Note", id="review.note", tooltip="Write a note on the pair"),
        Binding("u", "undo", "Undo", id="review.undo", tooltip="Revert the last decision and show its pair"),
        Binding("left_square_bracket", "go(-1)", "Previous", id="review.previous", tooltip="Previous pair", show=False),
        Binding("right_square_bracket", "go(1)", "Next", id="review.next", tooltip="Next pair", show=False),
        Binding(
            "slash",
            "filter",
            "Filter",
            id="review.filter",
            tooltip="Narrow the queue: topic Q, run R, or a grade pair such as 3 0",
        ),
        # Off the footer, which is full; F1 and the palette list it.
        Binding(
            "b",
            "blind_audit",
            "Blind audit",
            id="review.audit",
            show=False,
            tooltip="Grade an audit's sample in its random order, the LLM's grade hidden",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.session: ReviewSession | None = None
        self.loaded = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Building the review queue…", id="status")
        with Horizontal():
            yield PairPanel(id="pair")
            with Vertical(id="sidebar"):
                yield Static("[b]Last decisions[/b] (enter: decide again)")
                history: DataTable[str] = Table(id="history", cursor_type="row")
                history.add_columns("Pair", "Decision")
                yield history
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.reload()

    def on_screen_resume(self) -> None:
        selection = self.selection
        if self.session is not None and (self.session.ref, self.session.qrels, self.session.measure) != (
            selection.ref,
            selection.qrels,
            selection.measure,
        ):
            self.reload()

    # -- loading ---------------------------------------------------------------------------------

    def reload(self, filters: ReviewFilters | None = None) -> None:
        selection = self.selection
        self.loaded = False
        if selection.ref is None or selection.qrels is None:
            self.query_one("#status", Static).update(
                "Review needs two label sets: import or judge one, then choose them on the Leaderboard (F3)."
            )
            return
        self.session = self.project.review(
            selection.ref,
            selection.qrels,
            measure=selection.measure,
            filters=filters,
            person=self.state.person,
        )
        self.query_one("#status", Static).update("Building the review queue…")
        self.build_queue(self.session)

    @work(thread=True, exclusive=True, group="review", exit_on_error=False)
    def build_queue(self, session: ReviewSession) -> None:
        # The queue's Δτ per pair needs many leaderboard updates: off the main thread, under the
        # engine lock so that no other worker touches the same evaluators meanwhile.
        with self.locked():
            session.load()
        self.post_message(ReviewLoaded(session))

    @on(ReviewLoaded)
    def show_queue(self, message: ReviewLoaded) -> None:
        if message.session is not self.session:
            return  # a queue built for choices that changed meanwhile
        self.loaded = True
        self.refresh_view()

    # -- rendering -------------------------------------------------------------------------------

    def project_changed(self) -> None:
        self.refresh_view()  # the statistics follow the leaderboards already brought up to date

    def refresh_view(self, stats: Stats | None = None) -> None:
        """Show the session's current pair, history and statistics (`stats` when just computed)."""
        session = self.session
        if session is None:
            return
        with self.locked():
            stats = stats or session.stats()
            view = session.view()
            history = session.history()
        self.query_one("#status", Static).update(status_line(session, stats))
        self.query_one(PairPanel).show(view, session.ref, session.qrels)
        table = self.query_one("#history", DataTable)
        table.clear()
        for decision in history:
            grade = f" {decision['grade']:g}" if decision["grade"] is not None else ""
            table.add_row(
                f"{decision['qid']} {decision['docid']}",
                f"{decision['action']}{grade}",
                key=f"{decision['decision']}|{decision['qid']}|{decision['docid']}",
            )

    # -- decisions -------------------------------------------------------------------------------

    def _decide(self, action: str | None, act: Callable[[ReviewSession], object]) -> None:
        """Apply `act` to the session (saved at once), repaint, and tell who listens (`ReviewDecided`)."""
        session = self.session
        if not self.loaded or session is None:
            return
        try:
            with self.locked():
                act(session)
                stats = session.stats()
        except UsageError as error:
            self.notify(str(error), severity="warning")
            return
        except ProjectBusy as error:  # another process kept the file longer than the studio waits
            self.notify(f"not saved: {error}", severity="error", timeout=10)
            return
        self.refresh_view(stats)
        self.post_message(ReviewDecided(action, stats))

    def action_grade(self, grade: int) -> None:
        self._decide("grade", lambda s: s.set_grade(float(grade)))

    def action_accept(self) -> None:
        self._decide("accept", ReviewSession.accept)

    def action_keep_reference(self) -> None:
        self._decide("reference", ReviewSession.keep_reference)

    def action_skip(self) -> None:
        self._decide("skip", ReviewSession.skip)

    def action_flag(self) -> None:
        self._decide("flag", ReviewSession.flag)

    def action_undo(self) -> None:
        def undo(session: ReviewSession) -> None:
            if session.undo() is None:
                self.notify("nothing to undo in this review")

        self._decide("undo", undo)

    def action_go(self, step: int) -> None:
        self._decide(None, lambda s: s.go(step))

    def action_note(self) -> None:
        pair = self.session.current() if self.session is not None else None
        if pair is None:
            return

        def save(text: str | None) -> None:
            if text:
                self._decide("note", lambda s: s.note(text))

        self.app.push_screen(TextPrompt(f"Note on {pair['qid']} {pair['docid']}"), save)

    def action_filter(self) -> None:
        def apply(text: str | None) -> None:
            try:
                filters = ReviewFilters.parse(text)
            except UsageError as error:
                self.notify(str(error), severity="warning")
                return
            self.reload(filters)

        self.app.push_screen(TextPrompt("Filter: topic Q · run R · REF AUDITED (empty: everything)"), apply)

    def action_blind_audit(self) -> None:
        def open_audit(name: str | None) -> None:
            if name:
                self.app.push_screen(AuditScreen(name))

        with self.locked():
            names = [str(row["audit"]) for row in self.project.audits()]
        self.app.push_screen(AuditPicker(names), open_audit)

    @on(DataTable.RowSelected, "#history")
    def decide_again(self, event: DataTable.RowSelected) -> None:
        if self.session is None or event.row_key.value is None:
            return
        _, qid, docid = event.row_key.value.split("|", 2)
        self.session.revisit(qid, docid)
        self.query_one(PairPanel).focus()
        self.refresh_view()
