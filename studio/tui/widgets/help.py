"""F1: the current screen's help and its keys, in a modal."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

from studio.tui.bindings import bindings_of


class HelpScreen(ModalScreen[None]):
    BINDINGS = bindings_of("help")
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 80%; max-width: 100; height: 80%; border: thick $accent; background: $surface; padding: 1 2;
    }
    """

    def __init__(self, title: str, text: str, keys: list[tuple[str, str]]) -> None:
        super().__init__()
        rows = "\n".join(f"| `{key}` | {what} |" for key, what in keys)
        self._markdown = f"# {title}\n\n{text}\n\n## Keys\n\n| key | does |\n|---|---|\n{rows}\n"

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(self._markdown)
