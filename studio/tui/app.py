"""The studio's Textual app."""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import App
from textual.binding import Binding
from textual.worker import Worker, WorkerState

from studio.services.project import Project
from studio.tui.commands import ScreenActions
from studio.tui.screens.help import HelpScreen
from studio.tui.screens.overview import OverviewScreen


class StudioApp(App[None]):
    TITLE = "Relevance Assessment Studio"
    COMMANDS = App.COMMANDS | {ScreenActions}
    BINDINGS = [
        Binding("f1", "context_help", "Help", id="app.help", tooltip="Help for this screen"),
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Leave the studio (nothing to save)"),
    ]

    def __init__(self, project: Project) -> None:
        super().__init__()
        self.project = project
        self.sub_title = Path(project.path).name

    def on_mount(self) -> None:
        self.push_screen(OverviewScreen())

    def action_context_help(self) -> None:
        screen = self.screen
        keys = [
            (self.get_key_display(active.binding), active.binding.description)
            for active in self.active_bindings.values()
            if active.enabled and active.binding.description
        ]
        self.push_screen(HelpScreen(getattr(screen, "TITLE", None) or self.TITLE,
                                    getattr(screen, "HELP", "") or "", keys))

    @on(Worker.StateChanged)
    def report_worker_error(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR and event.worker.error is not None:
            self.notify(str(event.worker.error), title="Background work failed", severity="error",
                        timeout=10)


def run_studio(path: Path) -> None:
    """Open the studio on the project file at `path` and return when the user quits."""
    with Project.open(path) as project:
        StudioApp(project).run()
