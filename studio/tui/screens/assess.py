"""A campaign walked as its conditions say, in a closed room (`studio tui --assess`, the app's one
screen: no key leaves it but quitting). A pair graded blind (manual, filtering, the recall sample)
shows the query, the passage and the scale only: never the LLM's grade, the condition's name or
any label set, not in the status line, the footer, F1 or a notice. Post-editing walks each topic's
pairs in groups of the LLM's grade from the highest, announces each group and shows the LLM's
grade, which `k` keeps. Each grade is saved in a worker behind the key (the next pair shows at
once); grades written elsewhere are read when the project changes (docs/assess.md)."""

from __future__ import annotations

from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.widgets import Static

from studio.domain.campaigns import GRADE_SCALE, CampaignGradeWritten, CampaignPairView, CampaignStep
from studio.domain.highlight import highlight_spans
from studio.domain.steps import UNDO
from studio.services.project import CampaignSession, Project
from studio.tui.bindings import bindings_of
from studio.tui.messages import CampaignGradesRead, CampaignOpened, Pair, StepsNotSaved, StepWritten
from studio.tui.screens.session import SessionScreen

# F1 on a pair graded blind: nothing in it tells what the LLM said, nor under which condition.
HELP = """You grade how relevant each passage is to its query: `0`–`3` saves your grade (with the
seconds it took) and shows the next pair at once; `u` takes back your last grade and shows its
pair again, with the grade you had given. Reopening starts at your first pair not graded. No key
leaves this screen but `q` (quit): the pairs and the scale are all it shows."""

POST_EDITING_HELP = """This pair is one of a group the LLM graded alike: each group is announced,
from the highest grade, and each pair shows the LLM's grade, which `k` keeps (`0`–`3` changes it)."""


def scale_help() -> str:
    """The scale as F1 tells it, TREC DL's wording (docs/assess.md)."""
    rows = "\n".join(f"| `{s.grade}` | {s.name} | {s.meaning} |" for s in GRADE_SCALE)
    return f"## The grades\n\n| grade | | meaning |\n|---|---|---|\n{rows}"


def scale_line() -> str:
    """The scale as the screen shows it under each pair, in a few words."""
    return " · ".join(f"[b]{s.grade}[/b] {s.name}: {s.brief}" for s in GRADE_SCALE)


def status_line(session: CampaignSession, saving: int = 0) -> str:
    """Where the walk is; the condition named only where it shows the LLM's grade (post-editing):
    a name on a blind pair would tell what the LLM had said (filtering keeps what it called relevant)."""
    done, total = session.progress()
    pair = session.current()
    where = "every pair graded" if pair is None else f"pair {(session.position or 0) + 1} of {total}"
    if pair is not None and pair.condition.shows_llm:
        where = f"{pair.condition} · {where}"
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


def taken_back_line(grade: float | None) -> str:
    """What the pair shown again after an undo had been given (empty: nothing taken back)."""
    if grade is None:
        return ""
    named = {float(s.grade): s.name for s in GRADE_SCALE}.get(grade)
    return f"You had graded this pair [b]{grade:g}[/b]{f' ({named})' if named else ''}: taken back, grade it again."


class AssessScreen(SessionScreen[CampaignSession, CampaignStep, CampaignGradeWritten | None, None]):
    TITLE = "Campaign"
    HELP = HELP
    BINDINGS = bindings_of("assess")
    DEFAULT_CSS = """
    AssessScreen #assess-pair { height: 1fr; padding: 0 1; }
    AssessScreen #assess-group { margin-bottom: 1; color: $accent; }
    AssessScreen #assess-head { margin-bottom: 1; }
    AssessScreen #assess-scale { margin-bottom: 1; color: $text-muted; }
    AssessScreen #assess-passage { margin-bottom: 1; border: round $primary-darken-2; padding: 0 1; }
    """
    WRITES = "assess-writes"
    NOTHING_TO_UNDO = "nothing of yours to take back in this campaign"
    WHAT, OPENING = "campaign", "assess"
    PANE = "assess-pair"
    PARTS = ("assess-group", "assess-head", "assess-scale", "assess-passage", "assess-llm", "assess-saved")

    def __init__(self, campaign: str) -> None:
        super().__init__()
        self.campaign = campaign
        self.views: dict[Pair, CampaignPairView] = {}
        self.keep_live: bool | None = None  # whether `k` is live, as the footer last drew it (None: not yet)
        self.taken_back: dict[Pair, float] = {}  # pairs shown again by an undo: the grade taken back

    def opening(self, project: Project) -> CampaignOpened:
        session = project.walk_campaign(self.campaign, person=self.state.person)
        session.load()
        return CampaignOpened(session, session.pair_views())

    @on(CampaignOpened)
    def opened(self, message: CampaignOpened) -> None:
        self.session = message.session
        self.views = message.views
        self.repaint()

    def help_text(self) -> str:
        pair = self.session.current() if self.session is not None else None
        shows = pair is not None and pair.condition.shows_llm
        return "\n\n".join([HELP, *([POST_EDITING_HELP] if shows else []), scale_help()])

    def status_text(self, session: CampaignSession) -> str:
        return status_line(session, len(self.pending))

    def paint(self, session: CampaignSession) -> None:
        """The current pair, its condition's view of it, from memory."""
        pair = session.current()
        view = self.views.get((pair.qid, pair.docid)) if pair is not None else None
        head, body = self.query_one("#assess-head", Static), self.query_one("#assess-passage", Static)
        self.query_one("#assess-scale", Static).update(scale_line())
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
        earlier = self.taken_back.get((pair.qid, pair.docid)) if pair is not None else None
        saved = "saving…" if self.pending else taken_back_line(earlier)
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

    # -- grading ---------------------------------------------------------------------------------

    def action_keep(self) -> None:
        if (session := self.taking_keys()) is not None:
            self.decide(session, lambda opened: opened.keep())

    def save(self, session: CampaignSession, step: CampaignStep) -> None:
        if step.pair is not None:  # graded again: what an undo had taken back is history
            self.taken_back.pop((step.pair.qid, step.pair.docid), None)
        super().save(session, step)

    def step_saved(
        self, message: StepWritten[CampaignSession, CampaignStep, CampaignGradeWritten | None, None]
    ) -> None:
        written = message.written
        if message.step.action == UNDO and written is not None and written["earlier"] is not None:
            self.taken_back[(written["qid"], written["docid"])] = written["earlier"]
        super().step_saved(message)

    def steps_not_saved(self, message: StepsNotSaved[CampaignSession, CampaignStep]) -> None:
        super().steps_not_saved(message)
        self.project_changed()  # a refusal may say the pair was graded elsewhere: read what stands

    # -- grades written elsewhere ----------------------------------------------------------------

    def resumed(self) -> None:
        """Back from F1 or a dialog: a write noticed meanwhile went to the screen on top, read it here."""
        self.project_changed()

    def project_changed(self) -> None:
        """Another process wrote (an import, another studio, a team's pull): read the person's grades
        that stand, before the next key is decided on a pair graded meanwhile."""
        if self.session is not None:
            self.read_grades(self.session)

    @work(thread=True, exclusive=True, group="assess-read", exit_on_error=False)
    def read_grades(self, session: CampaignSession) -> None:
        with self.locked():
            graded = session.standing_pairs()
            # Posted under the lock: a step written after this read lands after this message, so
            # the pairs still pending when it is handled include every one the read missed.
            self.post_message(CampaignGradesRead(session, graded))

    @on(CampaignGradesRead)
    def grades_read(self, message: CampaignGradesRead) -> None:
        if message.session is not self.session:
            return
        deciding = {(step.pair.qid, step.pair.docid) for step in self.pending if step.pair is not None}
        if message.session.catch_up(message.graded, deciding):
            self.repaint()
