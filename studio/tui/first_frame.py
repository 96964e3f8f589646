"""A screen's first frame held back until what it opens with is ready, for a moment at most.

The Review screen opens on a pair its worker reads (the queue, its Δτ, the first pair's texts).
Painted at once, the screen would draw its "building the queue" state, then its header and footer
as they settle, frame after frame nobody reads, on the thread the worker needs too: the start took
40 ms longer. Held in Textual's batch (`App.batch_update`), the widgets still change; the terminal
is drawn once they are ready, or after `wait` seconds, so that a queue of many seconds (a
DL-scale project) still shows that it is being built.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from textual.app import App

# Long enough for the sample project's queue (about 0.1 s), short enough not to be seen waiting.
FIRST_FRAME_WAIT = 0.25


class FirstFrame:
    """`hold()` when a screen starts, `show()` when its first content is in (again: a no-op)."""

    def __init__(self) -> None:
        self._batch: AbstractContextManager[None] | None = None

    def hold(self, app: App[Any], wait: float | None = None) -> None:
        """Hold the app's frames until `show()`, or `wait` seconds (`FIRST_FRAME_WAIT`)."""
        if self._batch is None:
            self._batch = app.batch_update()
            self._batch.__enter__()
            app.set_timer(FIRST_FRAME_WAIT if wait is None else wait, self.show)

    def show(self) -> None:
        if self._batch is not None:
            batch, self._batch = self._batch, None
            batch.__exit__(None, None, None)
