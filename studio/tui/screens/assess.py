"""A campaign walked as its conditions say: manual and filtering show the query and the passage
only, never the LLM's grade (not after grading either); post-editing walks each topic's pairs in
groups of the LLM's grade from the highest, announces each group and shows the LLM's grade, which
`k` keeps. Each grade is saved in a worker behind the key (the next pair shows at once)."""

from __future__ import annotations

from collections.abc import Callable

from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Footer, Header, Static

from studio.domain.campaigns import CampaignPairView, CampaignStep
from studio.domain.errors import StudioError, UsageError
from studio.domain.highlight import highlight_spans
from studio.services.project import CampaignSession
from studio.tui.bindings import bindings_of
from studio.tui.in_order import InOrder
from studio.tui.messages import CampaignOpened, CampaignWriteFailed, CampaignWritten, Pair
from studio.tui.screens.base import StudioScreen

HELP = """A campaign (`studio assess plan`) puts an LLM label set's pool before people under three
conditions, each on its own topics. Under manual and filtering you see the query and the passage
only: the LLM's grade is never shown, not even after you grade, so that it cannot sway the next
grade. Under post-editing the pairs come in groups of the LLM's grade, from the highest; each
group is announced, each pair shows the LLM's grade, and `k` keeps it. `0`–`3` saves your grade
(with the seconds it took) and shows the next pair; `u` takes back your last grade. Reopening
the campaign starts at your first pair not graded."""


def status_line(session: CampaignSession, saving: int = 0) -> str:
    done, total = session.progress()
    pair = session.current()
    where = "every pair graded" if pair is None else f"{pair.condition} · pair {(session.position or 0) + 1} of {total}"
    pending = f", {saving} saving…" if saving else ""
    return (
        f"[b]campaign {escape(session.campaign)}[/b] · {escape(session.person)} · {where} · "
        f"{done}/{total} graded ({session.graded_now} now{pending})"
    )


def passage(view: CampaignPairView) -> Text:
    text = Text(view["passage"])
    for start, end, _ in highlight_spans(view["passage"], view["query"], []):
        text.stylize("bold yellow", start, end)
    return text


def group_line(view: CampaignPairView) -> str:
    """Post-editing's group announcement (bold when the pair opens the group); empty elsewhere."""
    if view["group"] is None:
        return ""
    title = escape(view["group"])
    return f"[reverse b] {title} [/]" if view["opens_group"] else f"[b]{title}[/b]"


def llm_line(view: CampaignPairView) -> str:
    if view["llm_grade"] is None:
        return ""
    return f"LLM grade: [b]{view['llm_grade']:g}[/b] · `k` keeps it, `0`–`3` changes it"


class AssessScreen(StudioScreen):
    TITLE = "Campaign"
    HELP = HELP
    BINDINGS = bindings_of("assess")

    def __init__(self, campaign: str) -> None:
        super().__init__()
        self.campaign = campaign
        self.session: CampaignSession | None = None
        self.views: dict[Pair, CampaignPairView] = {}
        self.pending: list[CampaignStep] = []
        self.writes: InOrder[tuple[CampaignSession, CampaignStep]] = InOrder()
        self.leaving = False
        self.keep_live = True  # whether `k` is live; the footer starts with every key

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Opening the campaign…", id="status")
        with VerticalScroll(id="assess-pair"):
            yield Static("", id="assess-group")
            yield Static("", id="assess-head")
            yield Static("", id="assess-passage")
            yield Static("", id="assess-llm")
            yield Static("", id="assess-saved")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.open_campaign()

    @work(thread=True, exclusive=True, group="assess", exit_on_error=False)
    def open_campaign(self) -> None:
        with self.locked() as project:
            session = project.assess(self.campaign, person=self.state.person)
            session.load()
            views = session.pair_views()
        self.post_message(CampaignOpened(session, views))

    def work_failed(self, group: str, error: BaseException) -> None:
        if group == "assess":
            self.query_one("#status", Static).update(f"[red]Cannot open the campaign:[/red] {escape(str(error))}")

    @on(CampaignOpened)
    def opened(self, message: CampaignOpened) -> None:
        self.session = message.session
        self.views = message.views
        self.repaint()

    def repaint(self) -> None:
        """The current pair, its condition's view of it and the progress, from memory."""
        session = self.session
        if session is None:
            return
        self.query_one("#status", Static).update(status_line(session, len(self.pending)))
        pair = session.current()
        view = self.views.get((pair.qid, pair.docid)) if pair is not None else None
        head, body = self.query_one("#assess-head", Static), self.query_one("#assess-passage", Static)
        if view is None:
            head.update("[b]Every pair given to you is graded.[/b] `u` takes back the last grade.")
            body.update("")
            self.query_one("#assess-group", Static).update("")
            self.query_one("#assess-llm", Static).update("")
        else:
            self.query_one("#assess-group", Static).update(group_line(view))
            head.update(
                f"[b]{escape(view['qid'])}[/b] {escape(view['query'])}\n"
                f"[b]{escape(view['docid'])}[/b] · your grade: 0–3"
            )
            body.update(passage(view))
            self.query_one("#assess-llm", Static).update(llm_line(view))
        last = self.pending[-1] if self.pending else None
        saved = "saving…" if last is not None else ""
        self.query_one("#assess-saved", Static).update(saved)
        keep_live = pair is not None and pair.condition.shows_llm
        if keep_live != self.keep_live:  # the footer is redrawn only when `k` comes or goes (it is slow)
            self.keep_live = keep_live
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`k` is live (and in the footer) only on a pair whose condition shows the LLM's grade."""
        if action != "keep":
            return True
        pair = self.session.current() if self.session is not None else None
        return pair is not None and pair.condition.shows_llm

    def project_changed(self) -> None:
        self.repaint()

    # -- grading ---------------------------------------------------------------------------------

    def action_grade(self, grade: int) -> None:
        if self._opened():
            self._decide(lambda session: session.decide(float(grade)))

    def action_keep(self) -> None:
        if self._opened():
            self._decide(lambda session: session.keep())

    def action_undo(self) -> None:
        if self._opened():
            assert self.session is not None
            self._save(self.session, self.session.undo_step())

    def _opened(self) -> bool:
        """Whether the campaign is open; a key before that is not taken, and said so (the file may be
        another process's for a while: its keys once vanished without a word)."""
        if self.session is None:
            self.notify("The campaign is still opening: that key was not taken.", severity="warning")
        return self.session is not None

    def _decide(self, decide: Callable[[CampaignSession], CampaignStep]) -> None:
        session = self.session
        assert session is not None
        try:
            step = decide(session)
        except UsageError as error:
            self.notify(str(error), severity="warning")
            return
        self._save(session, step)

    def _save(self, session: CampaignSession, step: CampaignStep) -> None:
        self.pending.append(step)
        if self.writes.add((session, step)):
            self.write_grades()
        self.repaint()

    @work(thread=True, group="assess-writes", exit_on_error=False)
    def write_grades(self) -> None:
        try:
            while (item := self.writes.take()) is not None:
                session, step = item
                try:
                    with self.locked():
                        written = session.write(step)
                except StudioError as error:  # nothing of it was written; the later ones are not tried
                    dropped = [later for _, later in self.writes.drop()]
                    self.post_message(CampaignWriteFailed(session, [step, *dropped], str(error)))
                    continue
                self.post_message(CampaignWritten(session, step, written))
        except BaseException:
            self.writes.abandon()
            raise

    @on(CampaignWritten)
    def saved(self, message: CampaignWritten) -> None:
        if message.step in self.pending:
            self.pending.remove(message.step)
        message.session.settle(message.step, message.written)
        if message.step.action == "undo" and message.written is None:
            self.notify("nothing of yours to take back in this campaign")
        self.repaint()
        if self.leaving and not self.pending:
            self.app.pop_screen()

    @on(CampaignWriteFailed)
    def not_saved(self, message: CampaignWriteFailed) -> None:
        for step in reversed(message.steps):
            message.session.roll_back(step)
            if step in self.pending:
                self.pending.remove(step)
        later = len(message.steps) - 1
        also = f"\n\n{later} grade{'s' if later != 1 else ''} given after it were not saved either." if later else ""
        self.studio.show_message("Not saved", f"not saved: {message.error}{also}")
        self.leaving = False
        self.repaint()

    def action_leave(self) -> None:
        if self.pending:
            self.leaving = True
            self.notify("Saving the last grades, then back to Review.")
            return
        self.app.pop_screen()
