"""Blind audit: an audit's sample in its stored random order, the LLM's grade hidden until the
pair is graded; each grade is saved as the pair's gold label, in a worker behind the key (the next
pair shows at once, as in Review)."""

from __future__ import annotations

from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.widgets import Static

from studio.domain.errors import StudioError
from studio.domain.highlight import highlight_spans
from studio.domain.steps import AuditStep, AuditWritten
from studio.domain.views import AuditPairView, Reveal
from studio.services.project import AuditSession, Project
from studio.tui.bindings import bindings_of
from studio.tui.in_order import InOrder
from studio.tui.messages import AuditOpened, AuditPairRead, Pair
from studio.tui.screens.session import SessionScreen
from studio.tui.widgets.pair_panel import grade_text

HELP = """A blind audit walks an audit's sample (`studio audit plan`) in the random order drawn with
it, not by the pairs' effect on the leaderboard. Each pair shows the query and the passage only:
the LLM's grade, the other judges and the leaderboard are hidden until you have graded it, so that
they cannot sway the gold label. `0`–`3` saves your grade as the pair's gold label (the label set
named like the audit, undoable with `u` or `studio undo`) and tells what the LLM said; `s` leaves
a pair for later. Reopening the audit starts at the first pair not graded."""

READ_AHEAD = 3  # pairs whose texts are read before they are current


def status_line(session: AuditSession, saving: int = 0) -> str:
    done, total = session.progress()
    where = "every pair graded" if session.finished else f"pair {(session.position or 0) + 1} of {total}"
    pending = f", {saving} saving…" if saving else ""
    return (
        f"[b]audit {session.audit}[/b] of {session.qrels} · {session.record['design']} · {where} · "
        f"{done}/{total} graded ({session.graded_now} now{pending})"
    )


def reveal_line(reveal: Reveal | None, qrels: str) -> str:
    if reveal is None:
        return ""
    agree = "agrees" if reveal.llm == reveal.gold else "differs"
    return (
        f"{reveal.qid} {reveal.docid}: you gave [b]{grade_text(reveal.gold)}[/b]; "
        f"{qrels} had given [b]{grade_text(reveal.llm)}[/b] ({agree})"
    )


def passage(view: AuditPairView) -> Text:
    text = Text(view.passage)
    for start, end, _ in highlight_spans(view.passage, view.query, []):
        text.stylize("bold yellow", start, end)
    return text


class AuditScreen(SessionScreen[AuditSession, AuditStep, AuditWritten, None]):
    TITLE = "Blind audit"
    HELP = HELP
    BINDINGS = bindings_of("audit")
    DEFAULT_CSS = """
    AuditScreen #status { padding: 0 1; background: $boost; }
    AuditScreen #audit-pair { height: 1fr; padding: 0 1; }
    AuditScreen #audit-head { margin-bottom: 1; }
    AuditScreen #audit-passage { margin-bottom: 1; border: round $primary-darken-2; padding: 0 1; }
    AuditScreen #reveal { color: $text-muted; }
    """
    WRITES = "audit-writes"
    NOTHING_TO_UNDO = "nothing to undo in this audit"
    WHAT, OPENING = "audit", "audit"
    PANE, PARTS = "audit-pair", ("audit-head", "audit-passage", "reveal")

    def __init__(self, audit: str) -> None:
        super().__init__()
        self.audit = audit
        self.views: dict[Pair, AuditPairView] = {}  # the texts do not change: read once, ahead
        self.unread: dict[Pair, str] = {}
        self.asked: set[Pair] = set()
        self.reads: InOrder[tuple[AuditSession, tuple[str, str, str | None]]] = InOrder()

    def opening(self, project: Project) -> AuditOpened:
        session = project.blind_audit(self.audit, person=self.state.person)
        session.load()
        views = [session.pair_view(pair) for pair in session.upcoming(1)]  # the rest read ahead after
        return AuditOpened(session, views)

    @on(AuditOpened)
    def opened(self, message: AuditOpened) -> None:
        self.session = message.session
        self.views.update(((view.qid, view.docid), view) for view in message.views)
        self.repaint()

    # -- reading pairs ahead ---------------------------------------------------------------------

    def read_ahead(self) -> None:
        session = self.session
        if session is None:
            return
        known = self.views.keys() | self.asked
        wanted = [pair for pair in session.upcoming(READ_AHEAD) if (pair[0], pair[1]) not in known]
        for pair in wanted:
            self.asked.add((pair[0], pair[1]))
            if self.reads.add((session, pair)):
                self.read_views()

    @work(thread=True, group="audit-views", exit_on_error=False)
    def read_views(self) -> None:
        # One reader at a time: a reader per key waiting for the file could take every thread of
        # the pool the workers share, the writer's too.
        try:
            while (item := self.reads.take()) is not None:
                session, pair = item
                try:
                    with self.locked():
                        view = session.pair_view(pair)
                except StudioError as error:  # the file is kept elsewhere: said on the screen, asked again later
                    self.post_message(AuditPairRead(session, (pair[0], pair[1]), None, str(error)))
                    continue
                self.post_message(AuditPairRead(session, (pair[0], pair[1]), view))
        except BaseException:
            self.reads.abandon()
            raise

    @on(AuditPairRead)
    def pair_read(self, message: AuditPairRead) -> None:
        if message.session is not self.session:
            return
        self.asked.discard(message.pair)
        if message.view is not None:
            self.views[message.pair] = message.view
            self.unread.pop(message.pair, None)
        elif message.error is not None:
            self.unread[message.pair] = message.error
        self.repaint()

    # -- rendering -------------------------------------------------------------------------------

    def status_text(self, session: AuditSession) -> str:
        return status_line(session, len(self.pending))

    def paint(self, session: AuditSession) -> None:
        """The current pair and what the LLM had said of the last grade, from memory."""
        head, body = self.query_one("#audit-head", Static), self.query_one("#audit-passage", Static)
        current = session.current()
        view = self.views.get((current[0], current[1])) if current is not None else None
        if current is None:
            head.update("[b]Every pair of the audit is graded.[/b] `u` undoes the last grade.")
            body.update("")
        elif view is None:
            error = self.unread.get((current[0], current[1]))
            reading = f"[red]not read yet:[/red] {escape(error)}" if error else "[dim]reading the pair…[/dim]"
            head.update(f"[b]{current[0]}[/b]\n[b]{current[1]}[/b] · {reading}")
            body.update("")
        else:
            stratum = f" · stratum {view.stratum}" if view.stratum else ""
            head.update(f"[b]{view.qid}[/b] {view.query}\n[b]{view.docid}[/b]{stratum} · your grade: 0–3")
            body.update(passage(view))
        last = self.pending[-1] if self.pending else None
        if last is not None and last.action == "grade" and last.grade is not None:
            reveal = f"{last.qid} {last.docid}: you gave [b]{last.grade:g}[/b] · saving…"
        else:
            reveal = reveal_line(session.revealed, session.qrels)
        self.query_one("#reveal", Static).update(reveal)
        self.read_ahead()

    # -- grading ---------------------------------------------------------------------------------

    def action_skip(self) -> None:
        if (session := self.taking_keys()) is not None:
            session.skip()  # nothing to write: a skip lasts this sitting only
            self.repaint()
