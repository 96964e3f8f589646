"""What every screen of the studio shares: the project, the chosen label sets, who works, the lock
on the evaluation engine's cached evaluators (the workers take turns with it), and how failures
are told (a dialog, or the end of the app for a bug)."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from textual.app import App

from studio.domain.errors import StudioError
from studio.domain.frames import EVERY_TOPIC, TopicChoice
from studio.domain.views import ReviewFilters
from studio.services.project import Project
from studio.tui.widgets.dialog import MessageDialog


@dataclass
class Selection:
    """The label sets and measure the Leaderboard and Review screens work on."""

    ref: str | None
    qrels: str | None
    measure: str = "nDCG@10"
    topics: TopicChoice = EVERY_TOPIC  # the topics both screens compare on (`studio tui --topic …`)


def default_selection(
    project: Project,
    ref: str | None = None,
    qrels: str | None = None,
    measure: str = "nDCG@10",
    topics: TopicChoice = EVERY_TOPIC,
) -> Selection:
    """`human` (or the first label set) against the first LLM label set (else a simulated one), unless named."""
    sets = project.label_set_names()
    names = [row["name"] for row in sets]
    ref = ref or ("human" if "human" in names else names[0] if names else None)
    judged = [
        row["name"] for kind in ("llm", "simulated") for row in sets if row["kind"] == kind and row["name"] != ref
    ]
    others = [n for n in names if n != ref]
    qrels = qrels or (judged[0] if judged else others[0] if others else None)
    return Selection(ref, qrels, measure, topics)


@dataclass
class StudioState:
    project: Project
    selection: Selection
    person: str | None = None
    # A slice another screen sends Review to (the labels behind a significance decision); Review
    # takes it when it next shows.
    review_filters: ReviewFilters | None = None
    # The screen that sent the auditor to Review (its mode, e.g. the Leaderboard with the
    # significance matrix on top): escape in Review goes back there.
    review_return: str | None = None
    # The answers label set the Answers screen checks (`studio tui --answers SET`, its `m`); None:
    # the first one the project has.
    answers: str | None = None

    def take_review_filters(self) -> ReviewFilters | None:
        """The slice asked for, once: Review opens on it, and later showings keep their own queue."""
        filters, self.review_filters = self.review_filters, None
        return filters

    @property
    def engine_lock(self) -> threading.RLock:
        """The project's lock: the workers and the write path take turns with it (never the UI thread)."""
        return self.project.lock


class StateApp(App[None]):
    """An app that holds the studio's state, and tells of failures; every studio screen runs in one."""

    def __init__(self, state: StudioState) -> None:
        super().__init__()
        self.state = state
        self.crash: Exception | None = None  # the bug that ended the app, if one did

    def show_message(self, title: str, text: str, *, error: bool = True) -> None:
        """A dialog that closes on a key; a message with the same title as the open one joins it."""
        top = self.screen
        if isinstance(top, MessageDialog) and top.title_text == title:
            top.add(text)
            return
        self.push_screen(MessageDialog(title, text, error=error))

    def report_error(self, error: BaseException, title: str = "Background work failed") -> None:
        """An error meant for a person opens a dialog; any other is a bug and ends the app."""
        if isinstance(error, StudioError):
            self.show_message(title, str(error))
        else:  # raised again in a handler: Textual ends the app with it, as with any handler's bug
            raise error

    def _handle_exception(self, error: Exception) -> None:
        # Textual's one door for an exception nothing handled: kept for the crash report.
        if self.crash is None:
            self.crash = error
        super()._handle_exception(error)
