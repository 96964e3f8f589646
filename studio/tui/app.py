"""The studio's Textual app: five screens (Textual modes), each with its own keys.

Long work (reading the overview, building the review queue, leaderboards, judges, re-grading)
runs in thread workers that post messages; handlers on the main thread own every widget. The
evaluation engine's cached evaluators are shared, so whoever uses them holds the engine lock
(`StudioScreen.locked()`).
"""

from __future__ import annotations

import getpass
import os
from pathlib import Path

from textual import on
from textual.binding import Binding
from textual.worker import Worker, WorkerState

from studio.domain.choices import ScreenName
from studio.services.project import Project
from studio.tui.commands import ScreenActions
from studio.tui.screens.audit import AuditScreen
from studio.tui.screens.bank import BankScreen
from studio.tui.screens.base import StudioScreen
from studio.tui.screens.judges import JudgesScreen
from studio.tui.screens.leaderboard import LeaderboardScreen
from studio.tui.screens.overview import OverviewScreen
from studio.tui.screens.review import ReviewScreen
from studio.tui.state import StateApp, StudioState, default_selection
from studio.tui.widgets.help import HelpScreen

# How often the studio looks whether to give the project file up, and for others' writes.
IDLE_SECONDS = 0.5
IDLE_RELEASE_SECONDS = 5.0  # unasked, the file is given up after this long without use
TUI_WAIT_SECONDS = 5.0
# Workers that hold the file only inside their own transactions (judges, re-grading) and so do
# not keep the studio from releasing it while they run.
LONG_JOBS = frozenset({"judge", "regrade"})


class StudioApp(StateApp):
    TITLE = "Relevance Assessment Studio"
    CSS_PATH = "studio.tcss"
    COMMANDS = StateApp.COMMANDS | {ScreenActions}
    MODES = {
        ScreenName.overview: OverviewScreen,
        ScreenName.leaderboard: LeaderboardScreen,
        ScreenName.review: ReviewScreen,
        ScreenName.bank: BankScreen,
        ScreenName.judges: JudgesScreen,
    }
    DEFAULT_MODE = ScreenName.overview
    BINDINGS = [
        Binding("f1", "context_help", "Help", id="app.help", tooltip="Help for this screen"),
        Binding("f2", "switch_mode('overview')", "Overview", id="app.overview", tooltip="What the project holds"),
        Binding(
            "f3",
            "switch_mode('leaderboard')",
            "Leaderboard",
            id="app.leaderboard",
            tooltip="Runs under two label sets, rank correlation",
        ),
        Binding("f4", "switch_mode('review')", "Review", id="app.review", tooltip="Step through disagreements"),
        Binding("f5", "switch_mode('bank')", "Bank", id="app.bank", tooltip="Edit test banks, re-grade"),
        Binding("f6", "switch_mode('judges')", "Judges", id="app.judges", tooltip="Run and watch LLM judges"),
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Leave the studio (nothing to save)"),
    ]

    def __init__(
        self,
        project: Project,
        *,
        screen: str = ScreenName.overview,
        ref: str | None = None,
        qrels: str | None = None,
        measure: str = "nDCG@10",
        person: str | None = None,
        audit: str | None = None,
    ) -> None:
        super().__init__(StudioState(project, default_selection(project, ref, qrels, measure), person))
        self.sub_title = Path(project.path).name
        self.start_screen = ScreenName.review if audit is not None else ScreenName(screen)
        self.start_audit = audit

    def on_mount(self) -> None:
        # The project file is given up whenever the studio is idle, so that headless commands
        # and judges in other terminals work meanwhile; what they write is noticed and shown.
        # A screen waits at most a few seconds for another process's write, then says so.
        self.state.project.share_when_idle(TUI_WAIT_SECONDS)
        self.watcher = self.state.project.watch_changes()
        self.set_interval(IDLE_SECONDS, self.share_the_file)
        if self.start_screen != self.DEFAULT_MODE:
            self.switch_mode(self.start_screen)
        if self.start_audit is not None:  # a blind audit opens over Review, where escape leads
            self.push_screen(AuditScreen(self.start_audit))

    def share_the_file(self) -> None:
        """Release the file when another process asks for it (or after a while idle) and no work but
        a long job's is under way, and show others' writes. Keeping it otherwise spares the next
        keypress the reopening of the file."""
        if not self.state.project.sharing_due(IDLE_RELEASE_SECONDS):
            return
        if any(not worker.is_finished and worker.group not in LONG_JOBS for worker in self.workers):
            return
        if not self.state.engine_lock.acquire(blocking=False):
            return
        try:
            self.state.project.release()  # a long job's writes and reads are waited for
            changes = self.watcher.poll()
        finally:
            self.state.engine_lock.release()
        if changes is not None:
            self.notify(changes.describe(), title="Written elsewhere", timeout=6)
            screen = self.screen
            if isinstance(screen, StudioScreen):
                screen.project_changed()

    def action_context_help(self) -> None:
        screen = self.screen
        keys = [
            (self.get_key_display(active.binding), active.binding.description)
            for active in self.active_bindings.values()
            if active.enabled and active.binding.description
        ]
        title, text = (screen.TITLE, screen.HELP) if isinstance(screen, StudioScreen) else (self.TITLE, "")
        self.push_screen(HelpScreen(title, text, keys))

    @on(Worker.StateChanged)
    def report_worker_error(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR and event.worker.error is not None:
            self.notify(str(event.worker.error), title="Background work failed", severity="error", timeout=10)


def run_studio(
    project: Project,
    *,
    screen: str = ScreenName.overview,
    ref: str | None = None,
    qrels: str | None = None,
    person: str | None = None,
    audit: str | None = None,
) -> None:
    """Open the studio on `project` (on a blind audit with `audit`) and return, closing it, when the user quits."""
    who = person or os.environ.get("STUDIO_PERSON") or getpass.getuser()
    with project:
        StudioApp(project, screen=screen, ref=ref, qrels=qrels, person=who, audit=audit).run()
