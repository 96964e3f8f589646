"""Messages that thread workers post to the app; widgets change only in their handlers."""

from __future__ import annotations

from textual.message import Message

from studio.services.overview import Overview


class OverviewLoaded(Message):
    """A fresh Overview was read from the project file."""

    def __init__(self, overview: Overview) -> None:
        super().__init__()
        self.overview = overview
