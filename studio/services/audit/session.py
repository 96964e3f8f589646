"""Grading an audit sample blind: the pairs in the audit's stored random order, without the LLM's
grade, each grade saved at once as a gold label.

The order is the one drawn with the sample (not the Review queue's Δτ order), so that stopping
early leaves a random subsample and nothing about the LLM's label steers what is graded next.
The LLM's grade of a pair is told only once the pair is graded. A grade is an audited label edit
of the audit's gold label set (origin person, undoable), written with the audit's own record of
the unit in one transaction; reopening the audit starts at the first pair not graded.

As Review, the audit is an interactive session (`studio.services.session`): `decide()` makes the
next pair current at once, in memory; `write()` saves the grade (off a front end's UI thread), then
`settle()` or, when it failed, `roll_back()`. `grade()` and `undo()` take the steps at once.

When the audit's pairs are assigned to several assessors (`studio audit assign`), the person is
the assessor: the session walks their pairs only, a grade is theirs (the pair's gold grade then
follows from every assessor's, see `studio.services.audit.assessments`) and an undo takes back
their newest grade. Either way each grade keeps the seconds from the pair shown to the key.
"""

from __future__ import annotations

import time

from studio.domain.audit_results import AuditRecord
from studio.domain.errors import UsageError
from studio.domain.names import check_name
from studio.domain.rows import StoredEvent
from studio.domain.steps import AuditStep, AuditWritten
from studio.domain.views import AuditPairView, Reveal
from studio.services.audit import assessments
from studio.services.audit.assignment import assessor_pairs, assessors_of
from studio.services.audit.samples import audit_pairs
from studio.services.facade.core import ProjectCore
from studio.services.session import InteractiveSession
from studio.store import Connection
from studio.store import assessors as assessor_store
from studio.store import audits as audit_store
from studio.store.pools import passage_texts, topic_texts

UNNAMED = "unnamed"  # the assessor of a grade given without a person's name (the Python API)


class AuditSession(InteractiveSession[AuditStep, AuditWritten]):
    def __init__(self, project: ProjectCore, audit: str, *, person: str | None = None) -> None:
        self.project, self.audit, self.person = project, audit, person
        found = audit_store.audit(project.db.cursor(), audit)
        if found is None:
            raise UsageError(f"no audit named {audit!r} (see `studio audit list`)")
        self.record: AuditRecord = found
        self.qrels = found["label_set"]
        self.pairs: list[tuple[str, str, str | None]] = []
        self.done: set[tuple[str, str]] = set()
        self.skipped: set[tuple[str, str]] = set()
        self.position: int | None = None
        self.revealed: Reveal | None = None
        self.graded_now = 0
        self.graded: list[AuditStep] = []  # this sitting's grades, oldest first (undone at once)
        self.assessors: list[str] = []  # the audit's assessors (none: the audit has one, whoever grades)
        # In a team's project every grade is an assessor's: the gold grade follows from all of them.
        self.shared = project.team_member() is not None
        self.shown_at = time.monotonic()  # when the current pair came up
        self.seconds: dict[AuditStep, float] = {}  # each grade's time from its pair shown to its key

    def load(self) -> None:
        con = self.project.db.cursor()
        audit_id = self.record["audit_id"]
        self.assessors = assessors_of(con, audit_id)
        if self.assessors:
            if self.person is None:
                raise UsageError(
                    f"audit {self.audit!r} is split among assessors ({', '.join(self.assessors)}): who grades?"
                )
            self.pairs = assessor_pairs(con, self.audit, check_name(self.person, "assessor"))
            standing = assessments.standing_grades(con, audit_id)
            self.done = {pair for pair, found in standing.items() if self.person in found.grades}
        else:
            self.pairs = audit_pairs(con, self.audit)
            self.done = audit_store.graded_pairs(con, audit_id, self.audit)
        self.position = self._next_undone()
        self.shown_at = time.monotonic()

    # -- what is shown ---------------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        return self.position is None

    def progress(self) -> tuple[int, int]:
        return sum((q, d) in self.done for q, d, _ in self.pairs), len(self.pairs)

    def current(self) -> tuple[str, str, str | None] | None:
        return None if self.position is None else self.pairs[self.position]

    def upcoming(self, count: int) -> list[tuple[str, str, str | None]]:
        """The current pair and the next ones not graded, `count` in all (what a front end reads ahead)."""
        if self.position is None:
            return []
        later = [p for p in self.pairs[self.position + 1 :] if (p[0], p[1]) not in self.done]
        return [self.pairs[self.position], *later][:count]

    def pair_view(self, pair: tuple[str, str, str | None]) -> AuditPairView:
        """The query and the passage of `pair`, read from the file; nothing of the LLM's."""
        qid, docid, stratum = pair
        con = self.project.db.cursor()
        return AuditPairView(
            qid,
            docid,
            topic_texts(con, [qid]).get(qid, ""),
            passage_texts(con, [(qid, docid)]).get((qid, docid), ""),
            stratum,
            self.pairs.index(pair),
            len(self.pairs),
        )

    def view(self) -> AuditPairView | None:
        pair = self.current()
        return None if pair is None else self.pair_view(pair)

    # -- grading at once -------------------------------------------------------------------------

    def grade(self, grade: float) -> Reveal:
        """The gold grade of the current pair; then the LLM's grade of it may be told, and the next
        pair not graded comes up."""
        reveal = self.take(self.decide(grade))
        assert isinstance(reveal, Reveal)
        return reveal

    def skip(self) -> None:
        """Grade this pair later (after the other pairs not graded); nothing is written."""
        pair = self.current()
        if pair is None:
            return
        self.skipped.add((pair[0], pair[1]))
        self.revealed = None
        self.position = self._next_undone()
        self.shown_at = time.monotonic()

    def undo(self) -> tuple[str, str] | None:
        """Revert the audit's newest grade still standing and show its pair again."""
        undone = self.take(self.undo_step())
        return undone if isinstance(undone, tuple) else None

    # -- grading in two steps --------------------------------------------------------------------

    def decide(self, grade: float) -> AuditStep:
        """Grade the current pair in memory: the next pair not graded is current at once."""
        pair = self.current()
        if pair is None or self.position is None:
            raise UsageError("every pair of the audit is graded")
        key = (pair[0], pair[1])
        step = AuditStep(
            "grade", key[0], key[1], self.position, grade, key in self.done, was_skipped=key in self.skipped
        )
        now = time.monotonic()
        self.seconds[step] = now - self.shown_at
        self.done.add(key)
        self.skipped.discard(key)
        self.revealed = None
        self.position = self._next_undone()
        self.shown_at = now
        self.graded.append(step)
        return step

    def undo_step(self) -> AuditStep:
        """The undo of the newest grade: its pair is current at once when this sitting graded it."""
        before = self.position
        if not self.graded:
            return AuditStep("undo", "", "", before)
        last = self.graded.pop()
        self.revealed = None
        self.position = self._index((last.qid, last.docid))
        self.shown_at = time.monotonic()
        return AuditStep("undo", last.qid, last.docid, before, reverts=last)

    def write(self, step: AuditStep) -> AuditWritten:
        """Save a step: a grade gives what the LLM had said of the pair; an undo the pair it
        reverted (None when no grade stands)."""
        if step.action == "undo":
            return self._write_undo()
        if step.grade is None:
            raise UsageError("a gold grade needs the grade")
        qid, docid, grade = step.qid, step.docid, step.grade
        audit_id = self.record["audit_id"]
        seconds = self.seconds.pop(step, None)
        if (self.assessors or self.shared) and self.person is not None:
            assessments.record_grade(self.project.writes, self.audit, qid, docid, self.person, grade, seconds=seconds)
        else:

            def record(tx: Connection, event: StoredEvent) -> None:
                event_id = int(str(event["event"]))
                audit_store.add_grade(tx, audit_id, qid, docid, event_id)
                assessor_store.add_assessment(
                    tx,
                    audit_id,
                    qid,
                    docid,
                    self.person or UNNAMED,
                    kind=assessments.GRADE,
                    grade=grade,
                    seconds=seconds,
                    label_event=event_id,
                )

            self.project.writes.edit(
                self.audit, qid, docid, grade, note=f"audit {self.audit}", person=self.person, also=record
            )
        with self.project.lock:
            return Reveal(qid, docid, grade, self._llm_grade(qid, docid))

    def settle(self, step: AuditStep, written: AuditWritten) -> None:
        """Record in memory what `write(step)` saved."""
        if isinstance(written, Reveal):
            self.done.add((written.qid, written.docid))  # again: an undo before it may have settled since
            self.graded_now += 1
            self.revealed = written
        elif isinstance(written, tuple):
            self.done.discard(written)
            self.graded_now = max(0, self.graded_now - 1)
            if written != (step.qid, step.docid):  # not the pair shown at once
                self.revealed = None
                self.position = self._index(written)

    def roll_back(self, step: AuditStep) -> None:
        """Take back a step whose write failed (steps made after it first): its pair is current again."""
        key = (step.qid, step.docid)
        if step.action == "grade":
            if self.graded and self.graded[-1] is step:
                self.graded.pop()
            if not step.was_done:
                self.done.discard(key)
            if step.was_skipped:
                self.skipped.add(key)
        elif step.reverts is not None:
            self.graded.append(step.reverts)
        self.revealed = None
        self.position = step.position

    # -- helpers ---------------------------------------------------------------------------------

    def _write_undo(self) -> tuple[str, str] | None:
        if (self.assessors or self.shared) and self.person is not None:
            return assessments.take_back(self.project.writes, self.audit, self.person)
        last = audit_store.last_live_grade(self.project.db.cursor(), self.record["audit_id"])
        if last is None:
            return None
        self.project.writes.revert(int(last["label_event"]), person=self.person)
        return str(last["qid"]), str(last["docid"])

    def _index(self, pair: tuple[str, str]) -> int | None:
        return next((i for i, (q, d, _) in enumerate(self.pairs) if (q, d) == pair), self._next_undone())

    def _next_undone(self) -> int | None:
        """The first pair in the audit's order not graded, pairs skipped in this sitting last."""
        later = None
        for index, (qid, docid, _) in enumerate(self.pairs):
            if (qid, docid) in self.done:
                continue
            if (qid, docid) not in self.skipped:
                return index
            later = index if later is None else later
        return later

    def _llm_grade(self, qid: str, docid: str) -> float | None:
        topic = self.project.engine.evaluator(self.qrels).labels.get(qid)
        return topic.judged.get(docid) if topic is not None else None
