"""Blind audit: an audit's sample in its stored random order, the LLM's grade hidden until the
pair is graded; each grade is saved at once as the pair's gold label."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

from studio.domain.errors import ProjectBusy, UsageError
from studio.domain.highlight import highlight_spans
from studio.domain.views import AuditPairView, Reveal
from studio.services.project import AuditSession
from studio.tui.screens.base import StudioScreen, grade_bindings
from studio.tui.widgets.pair_panel import grade_text

HELP = """A blind audit walks an audit's sample (`studio audit plan`) in the random order drawn with
it, not by the pairs' effect on the leaderboard. Each pair shows the query and the passage only:
the LLM's grade, the other judges and the leaderboard are hidden until you have graded it, so that
they cannot sway the gold label. `0`–`3` saves your grade as the pair's gold label (the label set
named like the audit, undoable with `u` or `studio undo`) and tells what the LLM said; `s` leaves
a pair for later. Reopening the audit starts at the first pair not graded."""


def status_line(session: AuditSession) -> str:
    done, total = session.progress()
    where = "every pair graded" if session.finished else f"pair {(session.position or 0) + 1} of {total}"
    return (
        f"[b]audit {session.audit}[/b] of {session.qrels} · {session.record['design']} · {where} · "
        f"{done}/{total} graded ({session.graded_now} now)"
    )


def reveal_line(reveal: Reveal | None, qrels: str) -> str:
    if reveal is None:
        return ""
    agree = "agrees" if reveal.llm == reveal.gold else "differs"
    return (
        f"{reveal.qid} {reveal.docid}: you gave [b]{grade_text(reveal.gold)}[/b]; "
        f"{qrels} had given [b]{grade_text(reveal.llm)}[/b] ({agree})"
    )


def passage(view: AuditPairView) -> Text:
    text = Text(view.passage)
    for start, end, _ in highlight_spans(view.passage, view.query, []):
        text.stylize("bold yellow", start, end)
    return text


class AuditScreen(StudioScreen):
    TITLE = "Blind audit"
    HELP = HELP
    BINDINGS = [
        *grade_bindings("audit", "Gold grade {grade} for this pair, then the next"),
        Binding("s", "skip", "Skip", id="audit.skip", tooltip="Grade this pair later"),
        Binding("u", "undo", "Undo", id="audit.undo", tooltip="Revert the audit's last grade and show its pair"),
        Binding("escape", "leave", "Back", id="audit.leave", tooltip="Back to Review"),
    ]

    def __init__(self, audit: str) -> None:
        super().__init__()
        self.audit = audit
        self.session: AuditSession | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Opening the audit…", id="status")
        with VerticalScroll(id="audit-pair"):
            yield Static("", id="audit-head")
            yield Static("", id="audit-passage")
            yield Static("", id="reveal")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        try:
            with self.locked():
                session = self.project.blind_audit(self.audit, person=self.state.person)
                session.load()
        except UsageError as error:
            self.query_one("#status", Static).update(str(error))
            return
        self.session = session
        self.refresh_view()

    def refresh_view(self) -> None:
        session = self.session
        if session is None:
            return
        with self.locked():
            view = session.view()
        self.query_one("#status", Static).update(status_line(session))
        head, body = self.query_one("#audit-head", Static), self.query_one("#audit-passage", Static)
        if view is None:
            head.update("[b]Every pair of the audit is graded.[/b] `u` undoes the last grade.")
            body.update("")
        else:
            stratum = f" · stratum {view.stratum}" if view.stratum else ""
            head.update(f"[b]{view.qid}[/b] {view.query}\n[b]{view.docid}[/b]{stratum} · your grade: 0–3")
            body.update(passage(view))
        self.query_one("#reveal", Static).update(reveal_line(session.revealed, session.qrels))

    def project_changed(self) -> None:
        self.refresh_view()

    def _act(self, act: Callable[[AuditSession], object]) -> None:
        session = self.session
        if session is None:
            return
        try:
            with self.locked():
                act(session)
        except UsageError as error:
            self.notify(str(error), severity="warning")
            return
        except ProjectBusy as error:
            self.notify(f"not saved: {error}", severity="error", timeout=10)
            return
        self.refresh_view()

    def action_grade(self, grade: int) -> None:
        self._act(lambda s: s.grade(float(grade)))

    def action_skip(self) -> None:
        self._act(AuditSession.skip)

    def action_undo(self) -> None:
        def undo(session: AuditSession) -> None:
            if session.undo() is None:
                self.notify("nothing to undo in this audit")

        self._act(undo)

    def action_leave(self) -> None:
        self.app.pop_screen()


class AuditPicker(ModalScreen[str | None]):
    """Choose one of the project's audits (dismissed with its name, or None)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="audit-picker.cancel", tooltip="Close")]

    def __init__(self, audits: list[str]) -> None:
        super().__init__()
        self.audits = audits

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                "Blind audit: choose an audit (`studio audit plan` draws one)"
                if self.audits
                else "No audit yet: `studio audit plan --qrels L --budget B --name A` draws one."
            )
            yield OptionList(*(Option(name, id=name) for name in self.audits), id="audit-choices")

    @on(OptionList.OptionSelected)
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
