"""Walking a campaign as its conditions say: the pairs given to one assessor in the campaign's walk
order, each grade saved at once as an audited edit of the campaign's label set.

* Manual and filtering show the query and the passage only. The LLM's grade is never told, not
  even once the pair is graded (unlike the blind audit): it would anchor the next grade.
* Post-editing walks each topic's pairs in groups of the LLM's grade from the highest; every pair
  shows its group's announcement ("the passages the LLM found highly relevant") and the LLM's grade,
  and `keep()` gives the pair the LLM's grade.

Each grade keeps the seconds from the pair shown to the key and whether the LLM's grade was on
screen. Reopening starts at the assessor's first pair not graded; `undo()` takes back their newest
grade and shows its pair again (the write answers the grade taken back, for the screen to show).
Grades other processes write for the same assessor (an import, another studio) are taken in by
`catch_up()`; a key on a pair graded elsewhere meanwhile is refused at its write, never written
over that grade. As the blind audit, the walk is an interactive session
(`studio.services.session`): `decide()` (in memory, the next pair current at once) and `write()` (off
the UI thread), then `settle()` or, when it failed, `roll_back()`.
"""

from __future__ import annotations

import time

from studio.domain.campaigns import CampaignGradeWritten, CampaignPairView, CampaignStep, Condition, PoolPair
from studio.domain.errors import UsageError
from studio.domain.names import check_name
from studio.services.campaigns.grades import (
    campaign_record,
    given_to,
    grade_written,
    record_grade,
    shown_pairs,
    standing_grades,
    take_back,
)
from studio.services.facade.core import ProjectCore
from studio.services.session import InteractiveSession
from studio.store.pools import passage_texts, topic_texts

# How the study this follows announced each post-editing group, by the LLM's grade.
GROUP_NAMES = {3.0: "perfectly relevant", 2.0: "highly relevant", 1.0: "related", 0.0: "non-relevant"}


def group_title(grade: float | None) -> str:
    """The announcement of a post-editing group."""
    if grade is None:
        return "Here are the passages the LLM did not grade"
    name = GROUP_NAMES.get(grade, f"graded {grade:g}")
    return f"Here are all the passages that the LLM found {name} ({grade:g})"


class CampaignSession(InteractiveSession[CampaignStep, CampaignGradeWritten | None]):
    def __init__(self, project: ProjectCore, campaign: str, *, person: str | None) -> None:
        self.project, self.campaign = project, campaign
        self.person = check_name(person or "unnamed", "assessor")
        self.record = campaign_record(project.db.cursor(), campaign)
        self.pairs: list[PoolPair] = []
        self.done: set[tuple[str, str]] = set()
        self.position: int | None = None
        self.graded_now = 0
        self.shown_at = time.monotonic()

    def load(self) -> None:
        con = self.project.db.cursor()
        given = given_to(con, self.record, self.person)
        self.pairs = [p for p in shown_pairs(con, self.record) if given is None or (p.qid, p.docid) in given]
        standing = standing_grades(con, self.record["campaign_id"])
        self.done = {pair for pair, grades in standing.items() if self.person in grades.grades}
        self.position = self._next_undone()
        self.shown_at = time.monotonic()

    # -- what is shown ---------------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        return self.position is None

    def progress(self) -> tuple[int, int]:
        return sum((p.qid, p.docid) in self.done for p in self.pairs), len(self.pairs)

    def current(self) -> PoolPair | None:
        return None if self.position is None else self.pairs[self.position]

    def pair_view(self, pair: PoolPair) -> CampaignPairView:
        """What the screen shows of `pair`: the LLM's grade and its group only under post-editing."""
        con = self.project.db.cursor()
        query = topic_texts(con, [pair.qid]).get(pair.qid, "")
        passage = passage_texts(con, [(pair.qid, pair.docid)]).get((pair.qid, pair.docid), "")
        return self._view(pair, self.pairs.index(pair), query, passage)

    def _view(self, pair: PoolPair, index: int, query: str, passage: str) -> CampaignPairView:
        shows = pair.condition.shows_llm
        before = self.pairs[index - 1] if index else None
        opens = before is None or before.qid != pair.qid or before.llm_grade != pair.llm_grade
        return CampaignPairView(
            **pair.listed(),
            query=query,
            passage=passage,
            group=group_title(pair.llm_grade) if shows else None,
            opens_group=shows and opens,
            index=index,
            total=len(self.pairs),
        )

    def pair_views(self) -> dict[tuple[str, str], CampaignPairView]:
        """Every pair's view, the texts read in two queries (what a front end reads once, at opening)."""
        con = self.project.db.cursor()
        queries = topic_texts(con, sorted({p.qid for p in self.pairs}))
        passages = passage_texts(con, [(p.qid, p.docid) for p in self.pairs])
        return {
            (p.qid, p.docid): self._view(p, i, queries.get(p.qid, ""), passages.get((p.qid, p.docid), ""))
            for i, p in enumerate(self.pairs)
        }

    def view(self) -> CampaignPairView | None:
        pair = self.current()
        return None if pair is None else self.pair_view(pair)

    # -- grading ---------------------------------------------------------------------------------

    def decide(self, grade: float) -> CampaignStep:
        """Grade the current pair in memory: the next pair not graded is current at once."""
        pair = self.current()
        if pair is None:
            raise UsageError("every pair given to you is graded")
        now = time.monotonic()
        step = CampaignStep("grade", pair, grade, now - self.shown_at, self.position)
        self.done.add((pair.qid, pair.docid))
        self.position = self._next_undone()
        self.shown_at = now
        return step

    def keep(self) -> CampaignStep:
        """Give the current pair the LLM's grade (post-editing only: elsewhere it is not shown)."""
        pair = self.current()
        if pair is None or pair.condition is not Condition.post_editing or pair.llm_grade is None:
            raise UsageError("only post-editing shows the LLM's grade to keep")
        return self.decide(pair.llm_grade)

    def undo_step(self) -> CampaignStep:
        return CampaignStep("undo", None, None, None, self.position)

    def write(self, step: CampaignStep) -> CampaignGradeWritten | None:
        """Save a step: a grade, or the undo of the newest grade (None when none stands)."""
        if step.action == "undo":
            return take_back(self.project.writes, self.campaign, self.person)
        assert step.pair is not None and step.grade is not None
        writes = self.project.writes
        record_grade(writes, self.campaign, step.pair, self.person, step.grade, seconds=step.seconds, ungraded=True)
        return grade_written(self.campaign, step.pair, self.person, step.grade)

    def settle(self, step: CampaignStep, written: CampaignGradeWritten | None) -> None:
        """Record in memory what `write(step)` saved: an undone pair is current again."""
        if step.action == "grade":
            self.graded_now += 1
        elif written is not None:
            key = (written["qid"], written["docid"])
            self.done.discard(key)
            self.graded_now = max(0, self.graded_now - 1)
            self.position = next((i for i, p in enumerate(self.pairs) if (p.qid, p.docid) == key), self.position)
            self.shown_at = time.monotonic()

    def roll_back(self, step: CampaignStep) -> None:
        """A step whose write failed: its pair is current again, not graded."""
        if step.pair is not None:
            self.done.discard((step.pair.qid, step.pair.docid))
        self.position = step.position if step.position is not None else self._next_undone()

    def grade(self, grade: float) -> CampaignGradeWritten | None:
        return self.take(self.decide(grade))

    def keep_llm(self) -> CampaignGradeWritten | None:
        return self.take(self.keep())

    def undo(self) -> CampaignGradeWritten | None:
        return self.take(self.undo_step())

    # -- grades written elsewhere -----------------------------------------------------------------

    def standing_pairs(self) -> set[tuple[str, str]]:
        """The pairs the person's grades stand on in the project now, whoever wrote them (read)."""
        standing = standing_grades(self.project.db.cursor(), self.record["campaign_id"])
        return {pair for pair, grades in standing.items() if self.person in grades.grades}

    def catch_up(self, graded: set[tuple[str, str]], deciding: set[tuple[str, str]]) -> bool:
        """Take in what `standing_pairs()` read: the pairs graded stand as `graded` says, but for those
        whose grade or undo is still being written (`deciding`), which keep what this sitting decided.
        The current pair stays, unless it is graded now; True when anything changed."""
        done = {pair for pair in graded if pair not in deciding} | {pair for pair in self.done if pair in deciding}
        if done == self.done:
            return False
        self.done = done
        current = self.current()
        if current is None or (current.qid, current.docid) in done:
            self.position = self._next_undone()
            self.shown_at = time.monotonic()
        return True

    def _next_undone(self) -> int | None:
        return next((i for i, p in enumerate(self.pairs) if (p.qid, p.docid) not in self.done), None)
