"""A campaign walked as its conditions say: manual and filtering show the query and the passage
only, never the LLM's grade (not after grading either); post-editing walks each topic's pairs in
groups of the LLM's grade from the highest, announces each group and shows the LLM's grade, which
`k` keeps. Each grade is saved in a worker behind the key (the next pair shows at once)."""

from __future__ import annotations

from rich.markup import escape
from rich.text import Text
from textual import on
from textual.widgets import Static

from studio.domain.campaigns import CampaignGradeWritten, CampaignPairView, CampaignStep
from studio.domain.highlight import highlight_spans
from studio.services.project import CampaignSession, Project
from studio.tui.bindings import bindings_of
from studio.tui.messages import CampaignOpened, Pair
from studio.tui.screens.session import SessionScreen

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


class AssessScreen(SessionScreen[CampaignSession, CampaignStep, CampaignGradeWritten | None, None]):
    TITLE = "Campaign"
    HELP = HELP
    BINDINGS = bindings_of("assess")
    WRITES = "assess-writes"
    NOTHING_TO_UNDO = "nothing of yours to take back in this campaign"
    WHAT, OPENING = "campaign", "assess"
    PANE, PARTS = "assess-pair", ("assess-group", "assess-head", "assess-passage", "assess-llm", "assess-saved")

    def __init__(self, campaign: str) -> None:
        super().__init__()
        self.campaign = campaign
        self.views: dict[Pair, CampaignPairView] = {}
        self.keep_live = True  # whether `k` is live; the footer starts with every key

    def opening(self, project: Project) -> CampaignOpened:
        session = project.walk_campaign(self.campaign, person=self.state.person)
        session.load()
        return CampaignOpened(session, session.pair_views())

    @on(CampaignOpened)
    def opened(self, message: CampaignOpened) -> None:
        self.session = message.session
        self.views = message.views
        self.repaint()

    def status_text(self, session: CampaignSession) -> str:
        return status_line(session, len(self.pending))

    def paint(self, session: CampaignSession) -> None:
        """The current pair, its condition's view of it, from memory."""
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

    # -- grading ---------------------------------------------------------------------------------

    def action_keep(self) -> None:
        if (session := self.taking_keys()) is not None:
            self.decide(session, lambda opened: opened.keep())
