"""The studio's screens share a base: typed access to the studio's state, a title and a help text,
the lock workers take turns with, and the report of a worker that failed."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import ClassVar

from textual import on, work
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from studio.services.project import Project
from studio.tui.messages import NamesLoaded
from studio.tui.state import Selection, StateApp, StudioState


class StudioScreen(Screen[None]):
    TITLE: ClassVar[str] = ""
    HELP: ClassVar[str] = ""
    failed = False  # a worker of the screen failed and a dialog says so

    @property
    def studio(self) -> StateApp:
        app = self.app
        if not isinstance(app, StateApp):
            raise TypeError(f"{type(self).__name__} runs in the studio app, not in {type(app).__name__}")
        return app

    @property
    def state(self) -> StudioState:
        return self.studio.state

    @property
    def project(self) -> Project:
        return self.state.project

    @property
    def selection(self) -> Selection:
        return self.state.selection

    @contextmanager
    def locked(self) -> Iterator[Project]:
        """The project with its evaluation engine to oneself: the lock every worker takes while it
        uses the project (never the UI thread, which must not wait)."""
        with self.state.engine_lock:
            yield self.state.project

    def help_text(self) -> str:
        """What F1 says of the screen (a screen whose help depends on what it shows says it here)."""
        return self.HELP

    def on_screen_resume(self) -> None:
        if self.failed:  # back from the dialog that told of a failure: not tried again on its own
            self.failed = False
            return
        self.resumed()

    def resumed(self) -> None:
        """The screen shows (the first time, or again): read what may have changed meanwhile."""

    @on(Worker.StateChanged)
    def report_failed_work(self, event: Worker.StateChanged) -> None:
        # A worker's state changes reach its own node only: the app hears of a screen's failure here.
        error = event.worker.error
        if event.state is WorkerState.ERROR and error is not None:
            self.failed = True
            self.work_failed(event.worker.group, error)
            self.studio.report_error(error)

    def work_failed(self, group: str, error: BaseException) -> None:
        """A worker of `group` failed (the app shows the error): say on the screen what is missing."""

    def project_changed(self) -> None:
        """Another process wrote to the project (the leaderboards in memory are already updated):
        show what changed. The default reads the selectors' names again."""
        self.load_names()

    @work(thread=True, exclusive=True, group="names", exit_on_error=False)
    def load_names(self) -> None:
        """Read the names the selectors offer off the UI thread; `NamesLoaded` brings them."""
        with self.locked() as project:
            names = project.names()
        self.post_message(NamesLoaded(names))
