"""Review: one disagreement at a time; a key decides, saves and moves on."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, Header, Input, Static

from studio.domain.errors import UsageError
from studio.services.views.highlight import highlight_spans
from studio.services.views.review import PairView, ReviewFilters, ReviewSession, Stats
from studio.tui.messages import ReviewLoaded

HELP = """Review steps through the pairs the audited label set (an LLM's) and the reference (the
human one) grade differently, the pairs that move the leaderboard most first. A key decides and
moves on; every decision is saved at once as an audited label edit of the audited set, so the
Kendall τ between the two leaderboards and Cohen's κ in the header are current after every key
(their change since the review opened is in brackets).

The passage shows the query's terms in bold and the answers extracted for test-bank items
underlined. Below it: every judge's grade of the pair with its confidence and raw output, and
the item grades. The sidebar lists the last decisions: select one and press `enter` to decide it
again. Choose the label sets and the measure on the Leaderboard screen (`F3`); `/` narrows the
queue to a topic, a run or a grade pair (e.g. `topic 1003`, `run lexical-bm25`, `3 0`)."""

STYLES = {"term": "bold yellow", "answer": "underline green"}


def _num(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _signed(value: float | None) -> str:
    return "" if value is None else f" ({value:+.3f})"


def _grade(value: float | None) -> str:
    return "–" if value is None else f"{value:g}"


def status_line(session: ReviewSession, stats: Stats) -> str:
    total = len(session.queue)
    where = "queue done" if session.done else f"pair {session.position + 1} of {total}"
    return (f"[b]{session.qrels}[/b] against [b]{session.ref}[/b] · {session.filters.describe()} · {where} · "
            f"{session.decisions_made} decided · τ {_num(stats.tau)}{_signed(stats.tau_change)} · "
            f"κ {_num(stats.kappa)}{_signed(stats.kappa_change)}")


def passage_text(view: PairView) -> Text:
    text = Text(view.passage)
    answers = [row["answer"] for row in view.items if row.get("answer")]
    for start, end, kind in highlight_spans(view.passage, view.query, answers):
        text.stylize(STYLES[kind], start, end)
    return text


class NoteScreen(ModalScreen[str | None]):
    """One line of text: a note, a filter, an item's wording."""

    DEFAULT_CSS = """
    NoteScreen { align: center middle; }
    NoteScreen > Vertical { width: 70; height: auto; border: thick $accent; background: $surface; padding: 1 2; }
    """
    BINDINGS = [Binding("escape", "dismiss_note", "Cancel", id="note.cancel")]

    def __init__(self, title: str, value: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text)
            yield Input(self.value, placeholder="enter saves, escape cancels", id="note-input")

    @on(Input.Submitted)
    def save(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_dismiss_note(self) -> None:
        self.dismiss(None)


class ReviewScreen(Screen[None]):
    DEFAULT_CSS = """
    ReviewScreen #status { padding: 0 1; background: $boost; }
    ReviewScreen #pair { width: 1fr; padding: 0 1; }
    ReviewScreen #pair-head { margin-bottom: 1; }
    ReviewScreen #passage { margin-bottom: 1; border: round $primary-darken-2; padding: 0 1; }
    ReviewScreen #sidebar { width: 38; border-left: solid $primary-darken-2; }
    ReviewScreen DataTable { height: auto; max-height: 12; margin-bottom: 1; }
    ReviewScreen #history { max-height: 100%; }
    """
    TITLE = "Review"
    HELP = HELP
    BINDINGS = [
        # One footer entry ("0–3 Grade") stands for the four grade keys.
        *(Binding(str(g), f"grade({g})", "Grade" if g == 0 else f"Grade {g}", id=f"review.grade{g}", show=g == 0,
                  key_display="0–3" if g == 0 else None,
                  tooltip=f"Set grade {g} in the audited label set and go on") for g in range(4)),
        Binding("a", "accept", "Accept LLM", id="review.accept", tooltip="Keep the audited (LLM) label and go on"),
        Binding("h", "keep_reference", "Keep human", id="review.reference",
                tooltip="Give the audited set the reference grade and go on"),
        Binding("s", "skip", "Skip", id="review.skip", tooltip="Decide later (skipped pairs come last)"),
        Binding("f", "flag", "Flag", id="review.flag", tooltip="Mark the pair for a second look"),
        Binding("n", "note", "Note", id="review.note", tooltip="Write a note on the pair"),
        Binding("u", "undo", "Undo", id="review.undo", tooltip="Revert the last decision and show its pair"),
        Binding("left_square_bracket", "go(-1)", "Previous", id="review.previous", tooltip="Previous pair",
                show=False),
        Binding("right_square_bracket", "go(1)", "Next", id="review.next", tooltip="Next pair", show=False),
        Binding("slash", "filter", "Filter", id="review.filter",
                tooltip="Narrow the queue: topic Q, run R, or a grade pair such as 3 0"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.session: ReviewSession | None = None
        self.loaded = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Building the review queue…", id="status")
        with Horizontal():
            with VerticalScroll(id="pair"):
                yield Static("", id="pair-head")
                yield Static("", id="passage")
                judges: DataTable[str] = DataTable(id="judges", cursor_type="row", show_cursor=False)
                judges.add_columns("Label set", "Grade", "Confidence", "Raw output or failure")
                yield judges
                items: DataTable[str] = DataTable(id="items", cursor_type="row", show_cursor=False)
                items.add_columns("Label set", "Item", "Grade", "Answer")
                yield items
            with Vertical(id="sidebar"):
                yield Static("[b]Last decisions[/b] (enter: decide again)")
                history: DataTable[str] = DataTable(id="history", cursor_type="row")
                history.add_columns("Pair", "Decision")
                yield history
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.reload()

    def on_screen_resume(self) -> None:
        selection = self.app.selection  # type: ignore[attr-defined]
        if self.session is not None and (self.session.ref, self.session.qrels, self.session.measure) != (
                selection.ref, selection.qrels, selection.measure):
            self.reload()

    # -- loading ---------------------------------------------------------------------------------

    def reload(self, filters: Any = None) -> None:
        selection = self.app.selection  # type: ignore[attr-defined]
        self.loaded = False
        if selection.ref is None or selection.qrels is None:
            self.query_one("#status", Static).update(
                "Review needs two label sets: import or judge one, then choose them on the Leaderboard (F3).")
            return
        self.session = ReviewSession(self.app.project, selection.ref, selection.qrels,  # type: ignore[attr-defined]
                                     measure=selection.measure, filters=filters,
                                     person=self.app.person)  # type: ignore[attr-defined]
        self.query_one("#status", Static).update("Building the review queue…")
        self.build_queue(self.session)

    @work(thread=True, exclusive=True, group="review", exit_on_error=False)
    def build_queue(self, session: ReviewSession) -> None:
        # The queue's Δτ per pair needs many leaderboard updates: off the main thread, under the
        # engine lock so that no other worker touches the same evaluators meanwhile.
        with self.app.engine_lock:  # type: ignore[attr-defined]
            session.load()
        self.post_message(ReviewLoaded())

    @on(ReviewLoaded)
    def show_queue(self) -> None:
        self.loaded = True
        self.refresh_view()

    # -- rendering -------------------------------------------------------------------------------

    def refresh_view(self) -> None:
        session = self.session
        if session is None:
            return
        with self.app.engine_lock:  # type: ignore[attr-defined]
            stats = session.stats()
            view = session.view()
            history = session.history()
        self.query_one("#status", Static).update(status_line(session, stats))
        head = self.query_one("#pair-head", Static)
        judges = self.query_one("#judges", DataTable)
        items = self.query_one("#items", DataTable)
        judges.clear()
        items.clear()
        if view is None:
            head.update("[b]The queue is done.[/b] `u` undoes the last decision; `/` chooses another slice.")
            self.query_one("#passage", Static).update("")
        else:
            decided = f" · decided: {view.decision['action']}" if view.decision else ""
            flag = " · [red]⚑ flagged[/red]" if view.flagged else ""
            notes = "".join(f"\n[i]note:[/i] {note}" for note in view.notes)
            head.update(
                f"[b]{view.qid}[/b] {view.query}\n[b]{view.docid}[/b] · {session.ref} "
                f"[b]{_grade(view.ref_grade)}[/b] · {session.qrels} [b]{_grade(view.grade)}[/b] · "
                f"Δτ if it took the {session.ref} grade {view.delta_tau:+.3f}{decided}{flag}{notes}")
            self.query_one("#passage", Static).update(passage_text(view))
            for row in view.judges:
                output = row["output"] if row["output"] is not None else f"failed: {row['parse_error']}"
                if row["label"] is None and row["parse_error"]:
                    output = f"{row['parse_error']}: {row['output'] or ''}"
                judges.add_row(row["label_set"], _grade(row["label"]), _num(row["confidence"], 2),
                               " ".join(str(output).split())[:90])
            for row in view.items:
                items.add_row(row["label_set"], (row["text"] or row["item_id"])[:48], _grade(row["grade"]),
                              " ".join((row["answer"] or "").split())[:40])
        table = self.query_one("#history", DataTable)
        table.clear()
        for decision in history:
            grade = f" {decision['grade']:g}" if decision["grade"] is not None else ""
            table.add_row(f"{decision['qid']} {decision['docid']}", f"{decision['action']}{grade}",
                          key=f"{decision['decision']}|{decision['qid']}|{decision['docid']}")

    # -- decisions -------------------------------------------------------------------------------

    def _decide(self, act: Any) -> None:
        if not self.loaded or self.session is None:
            return
        try:
            with self.app.engine_lock:  # type: ignore[attr-defined]
                act(self.session)
        except UsageError as error:
            self.notify(str(error), severity="warning")
        self.refresh_view()

    def action_grade(self, grade: int) -> None:
        self._decide(lambda s: s.set_grade(float(grade)))

    def action_accept(self) -> None:
        self._decide(lambda s: s.accept())

    def action_keep_reference(self) -> None:
        self._decide(lambda s: s.keep_reference())

    def action_skip(self) -> None:
        self._decide(lambda s: s.skip())

    def action_flag(self) -> None:
        self._decide(lambda s: s.flag())

    def action_undo(self) -> None:
        def undo(session: ReviewSession) -> None:
            if session.undo() is None:
                self.notify("nothing to undo in this review")

        self._decide(undo)

    def action_go(self, step: int) -> None:
        self._decide(lambda s: s.go(step))

    def action_note(self) -> None:
        if self.session is None or self.session.current() is None:
            return
        pair = self.session.current()
        assert pair is not None

        def save(text: str | None) -> None:
            if text:
                self._decide(lambda s: s.note(text))

        self.app.push_screen(NoteScreen(f"Note on {pair['qid']} {pair['docid']}"), save)

    def action_filter(self) -> None:
        def apply(text: str | None) -> None:
            words = (text or "").split()
            if not words:
                self.reload(ReviewFilters())
            elif words[0] == "topic" and len(words) == 2:
                self.reload(ReviewFilters(topic=words[1]))
            elif words[0] == "run" and len(words) == 2:
                self.reload(ReviewFilters(run=words[1]))
            elif len(words) == 2:
                try:
                    self.reload(ReviewFilters(ref_grade=float(words[0]), grade=float(words[1])))
                except ValueError:
                    self.notify("a grade pair is two numbers, e.g. 3 0", severity="warning")
            else:
                self.notify("filter: topic Q, run R, or two grades (reference, audited)", severity="warning")

        self.app.push_screen(NoteScreen("Filter: topic Q · run R · REF AUDITED (empty: everything)"), apply)

    @on(DataTable.RowSelected, "#history")
    def decide_again(self, event: DataTable.RowSelected) -> None:
        if self.session is None or event.row_key.value is None:
            return
        _, qid, docid = event.row_key.value.split("|", 2)
        self.session.revisit(qid, docid)
        self.query_one("#pair").focus()
        self.refresh_view()
