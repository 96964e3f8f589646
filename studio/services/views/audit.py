"""Grading an audit sample blind: the pairs in the audit's stored random order, without the LLM's
grade, each grade saved at once as a gold label.

The order is the one drawn with the sample (not the Review queue's Δτ order), so that stopping
early leaves a random subsample and nothing about the LLM's label steers what is graded next.
The LLM's grade of a pair is told only once the pair is graded. A grade is an audited label edit
of the audit's gold label set (origin person, undoable), written with the audit's own record of
the unit in one transaction; reopening the audit starts at the first pair not graded.
"""

from __future__ import annotations

from typing import Any

from studio.domain.errors import UsageError
from studio.domain.views import AuditPairView, Reveal
from studio.services.audit.samples import audit_pairs
from studio.services.facade.core import ProjectCore
from studio.store import audits as audit_store
from studio.store.pools import passage_texts, topic_texts


class AuditSession:
    def __init__(self, project: ProjectCore, audit: str, *, person: str | None = None) -> None:
        self.project, self.audit, self.person = project, audit, person
        found = audit_store.audit(project.db.cursor(), audit)
        if found is None:
            raise UsageError(f"no audit named {audit!r} (see `studio audit list`)")
        self.record: dict[str, Any] = found
        self.qrels = str(found["label_set"])
        self.pairs: list[tuple[str, str, str | None]] = []
        self.done: set[tuple[str, str]] = set()
        self.skipped: set[tuple[str, str]] = set()
        self.position: int | None = None
        self.revealed: Reveal | None = None
        self.graded_now = 0

    def load(self) -> None:
        con = self.project.db.cursor()
        self.pairs = audit_pairs(con, self.audit)
        self.done = audit_store.graded_pairs(con, int(self.record["audit_id"]), self.audit)
        self.position = self._next_undone()

    # -- what is shown ---------------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        return self.position is None

    def progress(self) -> tuple[int, int]:
        return sum((q, d) in self.done for q, d, _ in self.pairs), len(self.pairs)

    def current(self) -> tuple[str, str, str | None] | None:
        return None if self.position is None else self.pairs[self.position]

    def view(self) -> AuditPairView | None:
        pair = self.current()
        if pair is None or self.position is None:
            return None
        qid, docid, stratum = pair
        con = self.project.db.cursor()
        return AuditPairView(
            qid,
            docid,
            topic_texts(con, [qid]).get(qid, ""),
            passage_texts(con, [(qid, docid)]).get((qid, docid), ""),
            stratum,
            self.position,
            len(self.pairs),
        )

    # -- grading ---------------------------------------------------------------------------------

    def grade(self, grade: float) -> Reveal:
        """The gold grade of the current pair; then the LLM's grade of it may be told, and the next
        pair not graded comes up."""
        pair = self.current()
        if pair is None:
            raise UsageError("every pair of the audit is graded")
        qid, docid, _ = pair
        audit_id = int(self.record["audit_id"])
        self.project.writes.edit(
            self.audit,
            qid,
            docid,
            grade,
            note=f"audit {self.audit}",
            person=self.person,
            also=lambda tx, event: audit_store.add_grade(tx, audit_id, qid, docid, int(str(event["event"]))),
        )
        self.done.add((qid, docid))
        self.skipped.discard((qid, docid))
        self.graded_now += 1
        self.revealed = Reveal(qid, docid, grade, self._llm_grade(qid, docid))
        self.position = self._next_undone()
        return self.revealed

    def skip(self) -> None:
        """Grade this pair later (after the other pairs not graded)."""
        pair = self.current()
        if pair is None:
            return
        self.skipped.add((pair[0], pair[1]))
        self.revealed = None
        self.position = self._next_undone()

    def undo(self) -> tuple[str, str] | None:
        """Revert the audit's newest grade still standing and show its pair again."""
        last = audit_store.last_live_grade(self.project.db.cursor(), int(self.record["audit_id"]))
        if last is None:
            return None
        self.project.writes.revert(int(last["label_event"]), person=self.person)
        pair = (str(last["qid"]), str(last["docid"]))
        self.done.discard(pair)
        self.graded_now = max(0, self.graded_now - 1)
        self.revealed = None
        self.position = next((i for i, (q, d, _) in enumerate(self.pairs) if (q, d) == pair), self._next_undone())
        return pair

    # -- helpers ---------------------------------------------------------------------------------

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
