"""The studio's Textual app: six screens (Textual modes), each with its own keys.

No work with the project file runs on the UI thread: every read and write (names, the overview,
the review queue and its pairs, decisions, leaderboards, bank edits, judges, giving the file up
and noticing others' writes) runs in a thread worker that posts messages; handlers on the UI thread
own every widget. Another process may hold the file for seconds: a worker waits for it, the screen
does not. The evaluation engine's cached evaluators are shared, so a worker holds the project's
lock while it uses the project (`StudioScreen.locked()`, a `Project.turn()`); the UI thread never
takes it. The file is held during those turns and the writes' transactions, and between them
only until another process asks for it (or a moment passes): a command in another terminal
(`studio list`, `label`, `sync`) never waits for the studio, however long it stays open and however
often its team's sync runs (docs/team.md).

A worker's failure that is meant for a person (a `StudioError`) opens a dialog; anything else is a
bug and ends the app with exit status 1, its traceback written to a file named on stderr.
"""

from __future__ import annotations

import gc
import getpass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol

from textual import on, work
from textual.worker import Worker, WorkerState

from studio.domain.choices import ScreenName
from studio.domain.frames import EVERY_TOPIC, TopicChoice, TopicScope
from studio.domain.keymap import NO_KEYMAP, Keymap
from studio.domain.settings import current_settings
from studio.services.project import Project
from studio.tui.bindings import bindings_of
from studio.tui.crash import report_crash
from studio.tui.messages import ChangesNoticed, TeamSynced
from studio.tui.screens.base import StudioScreen
from studio.tui.state import StateApp, StudioState, default_selection
from studio.tui.team_sync import TEAM_CHECK_SECONDS, sync_once, team_line

if TYPE_CHECKING:
    from textual.command import Provider
    from textual.screen import Screen

# How often the studio looks whether another process asks for the file (a stat), and for others' writes.
IDLE_SECONDS = 0.25
# Between two uses the file is kept this long at most, and not at all once another process asks for
# it: the next keypress is spared the reopening, and no command waits for more than a look.
LINGER_SECONDS = 1.0
TUI_WAIT_SECONDS = 5.0
# Workers that hold the file only inside their own transactions and busy blocks (judges,
# re-grading, the team's sync) and so do not keep the studio from looking for others' writes
# while they run; and the worker that looks.
LONG_JOBS = frozenset({"judge", "regrade", "share", "team"})
# Workers that save what a person decided: quitting waits for them.
SAVING = frozenset({"review-writes", "audit-writes", "assess-writes", "answers-writes", "bank-edits"})
QUIT_POLL_SECONDS = 0.1
CAMPAIGN_MODE = "campaign"  # the one mode of `studio tui --assess`
# The actions a campaign's closed room turns off: screens, the palette.
ROOM_CLOSED_ACTIONS = frozenset({"switch_mode", "command_palette"})


class Described(Protocol):
    def describe(self) -> str: ...


class ChangeWatch(Protocol):
    """What `Project.watch_changes()` returns: polled for others' writes."""

    def poll(self) -> Described | None: ...


def _overview() -> Screen[None]:
    from studio.tui.screens.overview import OverviewScreen

    return OverviewScreen()


def _leaderboard() -> Screen[None]:
    from studio.tui.screens.leaderboard import LeaderboardScreen

    return LeaderboardScreen()


def _review() -> Screen[None]:
    from studio.tui.screens.review import ReviewScreen

    return ReviewScreen()


def _bank() -> Screen[None]:
    from studio.tui.screens.bank import BankScreen

    return BankScreen()


def _judges() -> Screen[None]:
    from studio.tui.screens.judges import JudgesScreen

    return JudgesScreen()


def _answers() -> Screen[None]:
    from studio.tui.screens.answers import AnswersScreen

    return AnswersScreen()


def _assess(campaign: str) -> Screen[None]:
    from studio.tui.screens.assess import AssessScreen

    return AssessScreen(campaign)


def _screen_actions() -> type[Provider]:
    """The palette's provider, imported when the palette first opens."""
    from studio.tui.commands import ScreenActions

    return ScreenActions


class StudioApp(StateApp):
    TITLE = "Relevance Assessment Studio"
    # Only the studio's own commands (and the theme): not Textual's screenshot, keys panel and the
    # scrolling keys of whatever widget has the focus.
    COMMANDS = {_screen_actions}
    # Each screen's module is imported when its mode is first shown: starting on Review does not
    # pay for the Leaderboard's plots or the Bank's and the Judges' forms.
    MODES = {
        ScreenName.overview: _overview,
        ScreenName.leaderboard: _leaderboard,
        ScreenName.review: _review,
        ScreenName.bank: _bank,
        ScreenName.judges: _judges,
        ScreenName.answers: _answers,
    }
    DEFAULT_MODE: ClassVar[str] = ScreenName.overview
    BINDINGS = bindings_of("app")

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
        assess: str | None = None,
        keymap: Keymap = NO_KEYMAP,
        topics: TopicChoice = EVERY_TOPIC,
        answers: str | None = None,
    ) -> None:
        # Started in the screen asked for, not switched to after the Overview has been built and
        # has read the project (its reading would hold the project before the first screen's).
        self.start_screen = ScreenName.review if audit is not None else ScreenName(screen)
        if answers is not None:
            self.start_screen = ScreenName.answers
        # A campaign is a closed room (docs/assess.md): its screen is the only one, the base of the
        # only mode; no key, F-key or palette leads out of it but quitting.
        self.closed_room = assess is not None
        self.DEFAULT_MODE = CAMPAIGN_MODE if self.closed_room else self.start_screen  # type: ignore[misc]  # Textual reads it per instance
        super().__init__(StudioState(project, default_selection(project, ref, qrels, measure, topics), person))
        if assess is not None:
            self.close_the_room(assess)
        self.state.answers = answers
        self.header = header_text(Path(project.path).name, topics)
        self.sub_title = self.header
        self.team_member = project.team_member()  # None: the project has no team
        self.last_reached: str | None = None  # when the background sync last reached the server
        self.team_written_elsewhere = False  # another process wrote to the file: sync its events too
        self.start_audit = audit
        self.watcher: ChangeWatch | None = None
        self.quitting = False
        # The person's keys replace the defaults of the bindings they name, on every screen: the
        # footer, F1 and the palette read the bindings through it, so they show them too.
        self.keymap = keymap
        self.set_keymap(keymap.for_textual())

    def on_mount(self) -> None:
        # The project file is held only while it is used and given up as each use ends, so that
        # headless commands and judges in other terminals work meanwhile; what they write is
        # noticed and shown. A worker waits at most a few seconds for another process's write.
        self.state.project.share_between_uses(TUI_WAIT_SECONDS, LINGER_SECONDS)
        self.start_watching()
        self.set_interval(IDLE_SECONDS, self.share_the_file)
        if self.team_member is not None:
            self.sub_title = f"{self.header} · {team_line(self.team_member, None, None)}"
            self.sync_team()
            self.set_interval(TEAM_CHECK_SECONDS, self.sync_team)
        if self.start_audit is not None:  # a blind audit opens over Review, where escape leads
            from studio.tui.screens.audit import AuditScreen

            self.push_screen(AuditScreen(self.start_audit))

    def on_ready(self) -> None:
        # What the studio holds once its first screen is drawn (its modules, Textual's, the screen's
        # widgets: about 64,000 objects on the sample) stays for the session. Frozen, it is left out
        # of the collector's full passes, which walked it in 13-20 ms each and now and then delayed
        # a key's repaint by as much; a full pass over what comes after takes about 1 ms.
        gc.freeze()

    def on_unmount(self) -> None:
        gc.unfreeze()  # collectable again once the app is gone (a script or a test may go on)

    def close_the_room(self, campaign: str) -> None:
        """The campaign's screen as the one mode: the other screens (Review shows the LLM's and the
        reference's grades) are not modes of this app, the palette is off."""
        for mode in list(self.MODES):
            self.remove_mode(mode)
        self.add_mode(CAMPAIGN_MODE, partial(_assess, campaign))
        self.use_command_palette = False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """In a campaign's closed room no screen can be switched to and no palette opened: the keys
        are off (and off the footer, F1 and the palette)."""
        return not (self.closed_room and action in ROOM_CLOSED_ACTIONS)

    @work(thread=True, group="share", exit_on_error=False)
    def start_watching(self) -> None:
        """Note how far the project file is now, to tell later what others wrote."""
        with self.state.project.turn() as project:
            self.watcher = project.watch_changes()

    def share_the_file(self) -> None:
        """Give the file up when another process asks for it or after a moment without use, and
        look for others' writes, in a worker, while no work but a long job's is under way."""
        if self.watcher is None or not self.state.project.sharing_due():
            return
        if any(not worker.is_finished and worker.group not in LONG_JOBS for worker in self.workers):
            return
        if any(not worker.is_finished and worker.group == "share" for worker in self.workers):
            return
        self.share(self.watcher)

    @work(thread=True, group="share", exit_on_error=False)
    def share(self, watcher: ChangeWatch) -> None:
        project = self.state.project
        # Not waiting: a worker that holds the lock is using the file, and sharing can wait a tick.
        if not project.lock.acquire(blocking=False):
            return
        try:
            project.release()  # a long job's writes and reads are waited for
            changes = watcher.poll()
        finally:
            project.lock.release()
        if changes is not None:
            self.post_message(ChangesNoticed(changes.describe()))

    def sync_team(self) -> None:
        """The team's sync, when due, in a worker, unless the last one still runs."""
        if not any(not worker.is_finished and worker.group == "team" for worker in self.workers):
            force, self.team_written_elsewhere = self.team_written_elsewhere, False
            self.run_team_sync(force)

    @work(thread=True, group="team", exit_on_error=False)
    def run_team_sync(self, force: bool) -> None:
        sync_once(self.state.project, self.post_message, force=force)

    @on(TeamSynced)
    def show_team(self, message: TeamSynced) -> None:
        assert self.team_member is not None
        if message.result is not None and not message.result["offline"]:
            self.last_reached = message.at
        self.sub_title = f"{self.header} · {team_line(self.team_member, message, self.last_reached)}"
        screen = self.screen
        if message.result is not None and message.result["pulled"] and isinstance(screen, StudioScreen):
            screen.project_changed()  # the others' grades are in the leaderboards already

    @on(ChangesNoticed)
    def show_changes(self, message: ChangesNoticed) -> None:
        # In a campaign the description would name label sets (the LLM's, the recall sample's):
        # the room is told only that grades came in, and shows what is its own.
        said = "Grades written elsewhere were read." if self.closed_room else message.description
        self.notify(said, title="Written elsewhere", timeout=6)
        self.team_written_elsewhere = self.team_member is not None
        screen = self.screen
        if isinstance(screen, StudioScreen):
            screen.project_changed()

    def action_context_help(self) -> None:
        from studio.tui.commands import studio_keys
        from studio.tui.widgets.help import HelpScreen

        screen = self.screen
        keys = [(key.key, key.title) for key in studio_keys(screen)]
        title, text = (screen.TITLE, screen.help_text()) if isinstance(screen, StudioScreen) else (self.TITLE, "")
        self.push_screen(HelpScreen(title, text, keys))

    async def action_quit(self) -> None:
        """Leave, once the decisions still being saved are saved (each waits a few seconds at most)."""
        if not self.saving():
            self.exit()
            return
        if not self.quitting:
            self.quitting = True
            self.notify("Saving the last decisions; the studio closes when they are saved.", title="Quitting")
            self.set_interval(QUIT_POLL_SECONDS, self._quit_when_saved)

    def _quit_when_saved(self) -> None:
        if not self.saving():
            self.exit()

    def saving(self) -> bool:
        return any(not worker.is_finished and worker.group in SAVING for worker in self.workers)

    @on(Worker.StateChanged)
    def report_worker_error(self, event: Worker.StateChanged) -> None:
        """The app's own workers; a screen's report through `StudioScreen` (the event does not bubble)."""
        if event.state is WorkerState.ERROR and event.worker.error is not None:
            self.report_error(event.worker.error)


def header_text(file_name: str, topics: TopicChoice) -> str:
    """The header's subtitle: the project file, and the topics when not every one both label."""
    said = [file_name]
    if topics.scope is TopicScope.own:
        said.append("each label set on its own topics")
    subset = topics.describe_subset()
    if subset is not None:
        said.append(f"on {subset}")
    return " · ".join(said)


def run_studio(
    project: Project,
    *,
    screen: str = ScreenName.overview,
    ref: str | None = None,
    qrels: str | None = None,
    person: str | None = None,
    audit: str | None = None,
    assess: str | None = None,
    keymap: Keymap = NO_KEYMAP,
    topics: TopicChoice = EVERY_TOPIC,
    answers: str | None = None,
) -> int:
    """Open the studio on `project` (on a blind audit with `audit`, on the Answers screen checking
    label set `answers`; the person's keys from `keymap`) and
    return, closing it, when the user quits: the exit status (1 after an unexpected error, its
    traceback in a file named on stderr)."""
    # In a team's project the member is the PostgreSQL role: their grades are shared under that name.
    who = person or project.team_member() or current_settings().person or getpass.getuser()
    with project:
        app = StudioApp(
            project,
            screen=screen,
            ref=ref,
            qrels=qrels,
            person=who,
            audit=audit,
            assess=assess,
            keymap=keymap,
            topics=topics,
            answers=answers,
        )
        app.run()
    return exit_status(app)


def exit_status(app: StudioApp) -> int:
    """How a finished app ends the process: 0, Textual's own status, or a crash report's."""
    if app.crash is not None:
        return report_crash(app.crash)
    return app.return_code or 0
