"""The studio's footer: Textual's compact footer, composed once however often the keys change
before it gets to it, its keys styled once.

Textual's footer recomposes itself (a widget per key: Review has nineteen) after every change of
the screen's keys, and a screen coming up changes them several times in a row (it is shown, it
takes the focus, its actions say what applies): each composition of the same keys is styled, laid
out and drawn anew. Here a change asks for one composition, which reads the keys as they are when
it runs; a change after it asks for the next. And each key comes compact already: Textual's key
turns compact once mounted, which applies the stylesheet to it, and to its two parts, a second
time."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class StudioFooter(Footer):
    def __init__(self) -> None:
        super().__init__(compact=True)
        self._composing = False  # a composition is asked for and has not run yet

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                widget.add_class("-compact", update=False)  # not mounted yet: styled once, compact
            yield widget

    def bindings_changed(self, screen: Screen[object]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._composing:
            self._composing = True
            self.call_after_refresh(self._compose_keys)

    async def _compose_keys(self) -> None:
        self._composing = False
        await self.recompose()
