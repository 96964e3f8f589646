"""`b` on Review: the project's audits to grade one blind, read in a worker; when there is none,
how to draw one, and nothing to fill in."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState

from studio.tui.bindings import bindings_of
from studio.tui.messages import AuditsListed
from studio.tui.state import StateApp

CHOOSE = "Blind audit: choose an audit (`studio audit plan` draws another)"


def no_audit_text(qrels: str | None) -> str:
    """What `b` says when the project has no audit: how to draw one."""
    llm = qrels or "LLM"
    return (
        "The project has no audit yet. A blind audit grades a random sample of an LLM label set's pairs, "
        f"the LLM's grade hidden. Draw one with\n\n  studio audit plan --qrels {llm} --budget 50 --name {llm}-audit"
        f"\n\nthen press b again (or open it with `studio tui --audit {llm}-audit`)."
    )


class AuditPicker(ModalScreen[str | None]):
    """Choose one of the project's audits (dismissed with its name, or None)."""

    BINDINGS = bindings_of("audit-picker")
    DEFAULT_CSS = """
    AuditPicker { align: center middle; }
    AuditPicker > Vertical { width: 84; max-width: 90%; height: auto; max-height: 80%; border: thick $accent;
        background: $surface; padding: 1 2; }
    AuditPicker OptionList { height: auto; max-height: 20; }
    AuditPicker #audit-hint { margin-top: 1; }
    """

    def __init__(self, qrels: str | None) -> None:
        super().__init__()
        self.qrels = qrels  # the audited label set, named in how to draw an audit
        self.audits: list[str] | None = None  # None until read

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Reading the audits…", id="audit-title")
            yield OptionList(id="audit-choices")
            yield Static("[dim]escape closes[/dim]", id="audit-hint")

    def on_mount(self) -> None:
        self.query_one(OptionList).display = False
        self.list_audits()

    @work(thread=True, exclusive=True, group="audits", exit_on_error=False)
    def list_audits(self) -> None:
        app = self.app
        assert isinstance(app, StateApp)
        with app.state.project.turn() as project:
            names = [str(row["audit"]) for row in project.audits()]
        self.post_message(AuditsListed(names))

    @on(AuditsListed)
    def offer(self, message: AuditsListed) -> None:
        self.audits = message.audits
        if not message.audits:
            self.query_one("#audit-title", Static).update(no_audit_text(self.qrels))
            return
        self.query_one("#audit-title", Static).update(CHOOSE)
        choices = self.query_one(OptionList)
        choices.add_options([Option(name, id=name) for name in message.audits])
        choices.display = True
        choices.focus()

    @on(Worker.StateChanged)
    def report_failed_work(self, event: Worker.StateChanged) -> None:
        app, error = self.app, event.worker.error
        if event.state is WorkerState.ERROR and error is not None and isinstance(app, StateApp):
            self.dismiss(None)
            app.report_error(error)

    @on(OptionList.OptionSelected)
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
