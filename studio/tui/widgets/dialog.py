"""A modal that says something the person must read (a write that failed, a step they cannot take
yet and how to take it) and closes on a key; nothing to fill in."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from studio.tui.bindings import bindings_of

CLOSE_HINT = "[dim]enter or escape closes[/dim]"


class MessageDialog(ModalScreen[None]):
    """A titled message; `error` styles it as a failure. Messages that arrive while it is open are
    added to it, so a burst of failures is one dialog to close, not one per failure."""

    BINDINGS = bindings_of("dialog")
    DEFAULT_CSS = """
    MessageDialog { align: center middle; }
    MessageDialog > Vertical { width: 84; max-width: 90%; height: auto; max-height: 80%; border: thick $error;
        background: $surface; padding: 1 2; }
    MessageDialog.info > Vertical { border: thick $accent; }
    MessageDialog #dialog-text { margin: 1 0; }
    MessageDialog #dialog-hint { color: $text-muted; }
    """

    def __init__(self, title: str, text: str, *, error: bool = True) -> None:
        super().__init__(classes="error" if error else "info")
        self.title_text = title
        self.messages = [text]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"[b]{escape(self.title_text)}[/b]", id="dialog-title")
            yield Static(self._body(), id="dialog-text")
            yield Static(CLOSE_HINT, id="dialog-hint")

    def add(self, text: str) -> None:
        """Say one more thing in the open dialog (not twice the same)."""
        if text in self.messages:
            return
        self.messages.append(text)
        if self.is_mounted:
            self.query_one("#dialog-text", Static).update(self._body())

    @property
    def text(self) -> str:
        return "\n\n".join(self.messages)

    def _body(self) -> str:
        return escape(self.text)


class ConfirmDialog(ModalScreen[bool]):
    """A question a destructive step asks first: y says yes, n or escape no."""

    BINDINGS = bindings_of("confirm")

    def __init__(self, question: str) -> None:
        super().__init__(classes="info")
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(escape(self.question), id="dialog-text")
            yield Static("[dim]y: yes · n or escape: no[/dim]", id="dialog-hint")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
