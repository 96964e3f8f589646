"""A modal that asks for one line of text: a note, a filter, an item's wording."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from studio.tui.bindings import bindings_of


class TextPrompt(ModalScreen[str | None]):
    """Dismissed with the text entered ("" when empty), or None when cancelled."""

    BINDINGS = bindings_of("prompt")
    DEFAULT_CSS = """
    TextPrompt { align: center middle; }
    TextPrompt > Vertical { width: 70; height: auto; border: thick $accent; background: $surface; padding: 1 2; }
    """

    def __init__(self, title: str, value: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text)
            yield Input(self.value, placeholder="enter saves, escape cancels", id="prompt-input")

    @on(Input.Submitted)
    def save(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
