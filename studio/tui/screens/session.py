"""A screen where a person works in an interactive session (`studio.services.session`): a key
decides at once, in memory, and the decision is saved behind it, in order.

The screen never waits for the project file. A key's step is applied to the session on the UI
thread and queued (`pending` lists the steps decided and not saved yet, oldest first); one worker
at a time writes them, one after another in the order of the keys (`InOrder`), each under the
project's lock. A write that lands posts `StepWritten` and the screen settles it; a write that
fails posts `StepsNotSaved` with the steps queued after it, which are not tried: the screen rolls
them all back, newest first, and a dialog says why. Leaving waits for the steps still pending.

A screen subclasses `SessionScreen[Session, Step, Written, After]`: it names what it opens, its
layout's parts, its worker groups, its unit of work and what it says when there is nothing to undo;
it fills in `opening()` (run in a worker: the session loaded, and the message that brings it), sets
`session` when that message comes, and `repaint()`; when it shows more, `after_write()` (what the
worker reads once a step is written, under the same lock), `step_saved()` and `steps_not_saved()`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Generic, TypeVar, cast

from rich.markup import escape
from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Header, Static

from studio.domain.errors import StudioError, UsageError
from studio.domain.steps import UNDO, Step
from studio.services.project import InteractiveSession, Project
from studio.tui.in_order import InOrder
from studio.tui.messages import StepsNotSaved, StepWritten
from studio.tui.screens.base import StudioScreen
from studio.tui.widgets.footer import StudioFooter

SessionT = TypeVar("SessionT", bound=InteractiveSession[Any, Any])
StepT = TypeVar("StepT", bound=Step)
WrittenT = TypeVar("WrittenT")
AfterT = TypeVar("AfterT")


class SessionScreen(StudioScreen, Generic[SessionT, StepT, WrittenT, AfterT]):
    WHAT: ClassVar[str] = "session"  # what is opened: "Opening the …", "Cannot open the …"
    OPENING: ClassVar[str] = "session"  # the opening worker's group
    PANE: ClassVar[str] = "session-pair"  # the id of the scrolling pane that shows the pair
    PARTS: ClassVar[tuple[str, ...]] = ()  # the ids of the pane's lines, top to bottom
    WRITES: ClassVar[str] = "session-writes"  # the writer's worker group: quitting waits for it
    UNIT: ClassVar[tuple[str, str]] = ("grade", "given")  # the dialog's words for a step and its keys
    LEAVING: ClassVar[str] = "Saving the last grades, then back to Review."  # sessions open over Review
    NOTHING_TO_UNDO: ClassVar[str] = "nothing to undo"

    def __init__(self) -> None:
        super().__init__()
        self.session: SessionT | None = None  # None until the session is opened
        self.pending: list[StepT] = []  # decided, not saved yet, oldest first
        self.writes: InOrder[tuple[SessionT, StepT]] = InOrder()
        self.leaving = False  # the person asked to leave; the screen closes once nothing is pending

    # -- opening ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(f"Opening the {self.WHAT}…", id="status")
        with VerticalScroll(id=self.PANE):
            for part in self.PARTS:
                yield Static("", id=part)
        yield StudioFooter()

    def on_mount(self) -> None:
        self.start()

    def start(self) -> None:
        """Open the session in a worker (the message `opening()` returns brings it)."""
        self.run_worker(
            self.open_session, name="open_session", group=self.OPENING, thread=True, exclusive=True, exit_on_error=False
        )

    def open_session(self) -> None:
        with self.locked() as project:
            opened = self.opening(project)
        self.post_message(opened)

    def opening(self, project: Project) -> Message:
        """The session opened and loaded (in a worker, under the lock), in the message that brings it."""
        raise NotImplementedError

    def work_failed(self, group: str, error: BaseException) -> None:
        if group == self.OPENING:
            self.query_one("#status", Static).update(f"[red]Cannot open the {self.WHAT}:[/red] {escape(str(error))}")

    # -- what a screen fills in ------------------------------------------------------------------

    def repaint(self) -> None:
        """Show the session's progress and its current pair, from memory only."""
        session = self.session
        if session is None:
            return
        self.query_one("#status", Static).update(self.status_text(session))
        self.paint(session)

    def status_text(self, session: SessionT) -> str:
        """The status line: where the session is, and how many steps are saving."""
        raise NotImplementedError

    def paint(self, session: SessionT) -> None:
        """Show the current pair."""

    def ready(self) -> SessionT | None:
        """The session when it takes keys (opened), else None."""
        return self.session

    def after_write(self, session: SessionT) -> AfterT | None:
        """What the worker reads once a step is written, under the same lock (the figures it moved)."""
        return None

    def step_saved(self, message: StepWritten[SessionT, StepT, WrittenT, AfterT | None]) -> None:
        """A step was written and settled: show it (the default says when an undo found nothing)."""
        self.tell_nothing_undone(message)
        self.repaint()

    def steps_not_saved(self, message: StepsNotSaved[SessionT, StepT]) -> None:
        """Steps were rolled back and the dialog says why: show the session again."""
        self.repaint()

    # -- deciding and saving ---------------------------------------------------------------------

    def decide(self, session: SessionT, choice: Callable[[SessionT], StepT]) -> None:
        """Apply a person's choice to the session at once and save it behind; a refusal is said."""
        try:
            step = choice(session)
        except UsageError as error:
            self.notify(str(error), severity="warning")
            return
        self.save(session, step)

    def project_changed(self) -> None:
        self.repaint()

    def taking_keys(self) -> SessionT | None:
        """The session when it takes keys; else None, and the person is told the key was not taken
        (the file may be another process's for a while: such keys once vanished without a word)."""
        session = self.ready()
        if session is None:
            self.notify(f"The {self.WHAT} is still opening: that key was not taken.", severity="warning")
        return session

    def action_grade(self, grade: int) -> None:
        session = self.taking_keys()
        if session is not None:
            self.decide(session, lambda ready: ready.decide(float(grade)))

    def action_undo(self) -> None:
        session = self.taking_keys()
        if session is not None:
            self.save(session, session.undo_step())

    def save(self, session: SessionT, step: StepT) -> None:
        """Queue a decided step for its write and repaint at once."""
        self.pending.append(step)
        if self.writes.add((session, step)):
            self.run_worker(self.write_steps, name="write_steps", group=self.WRITES, thread=True, exit_on_error=False)
        self.repaint()

    def write_steps(self) -> None:
        """The worker: write the queued steps in order until none is left."""
        try:
            while (item := self.writes.take()) is not None:
                session, step = item
                try:
                    with self.locked():
                        written = session.write(step)
                        after = self.after_write(session)
                except StudioError as error:  # nothing of it was written; the later ones are not tried
                    dropped = [later for _, later in self.writes.drop()]
                    self.post_message(StepsNotSaved(session, [step, *dropped], str(error)))
                    continue
                self.post_message(StepWritten(session, step, written, after))
        except BaseException:
            self.writes.abandon()
            raise

    @on(StepWritten)
    def step_landed(self, message: StepWritten[Any, Any, Any, Any]) -> None:
        landed = cast(StepWritten[SessionT, StepT, WrittenT, AfterT | None], message)
        self._unpend(landed.step)
        landed.session.settle(landed.step, landed.written)
        self.step_saved(landed)
        if self.leaving and not self.pending:
            self.leave_now()

    @on(StepsNotSaved)
    def steps_failed(self, message: StepsNotSaved[Any, Any]) -> None:
        failed = cast(StepsNotSaved[SessionT, StepT], message)
        for step in reversed(failed.steps):  # the newest first: each puts back what it moved
            failed.session.roll_back(step)
            self._unpend(step)
        later = len(failed.steps) - 1
        unit, verb = self.UNIT
        also = f"\n\n{later} {unit}{'s' if later != 1 else ''} {verb} after it were not saved either." if later else ""
        self.studio.show_message("Not saved", f"not saved: {failed.error}{also}")
        self.leaving = False
        self.steps_not_saved(failed)

    def tell_nothing_undone(self, message: StepWritten[SessionT, StepT, WrittenT, AfterT | None]) -> None:
        if message.step.action == UNDO and message.written is None:
            self.notify(self.NOTHING_TO_UNDO)

    def action_leave(self) -> None:
        """Close the screen, once the steps decided are saved (or one fails, and is shown)."""
        if self.pending:
            self.leaving = True
            self.notify(self.LEAVING)
            return
        self.leave_now()

    def leave_now(self) -> None:
        """Close the screen (nothing is pending): back to the screen beneath it."""
        self.app.pop_screen()

    def _unpend(self, step: StepT) -> None:
        if step in self.pending:
            self.pending.remove(step)
