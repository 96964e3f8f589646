"""Reviewing disagreements: one pair at a time, one key per decision, saved at once.

A review compares an audited label set (`qrels`, usually an LLM's) with a reference (`ref`,
usually the human one). The queue is `studio disagreements`' order (the most leaderboard-changing
pairs first), narrowed by filters; pairs decided in an earlier sitting are left out, pairs
skipped go last, so reopening a review resumes where it stopped. A decision that sets a grade
is an audited label edit of the audited set, made through the evaluation engine, so Kendall τ
and Cohen's κ are current after every key; every decision is also written to the review log.

A review is an interactive session (`studio.services.session`): `decide()` (or `undo_step()`)
applies a decision to the queue in memory, at once, so the next pair is current before anything is
written; `write()` saves it — a grade's label edit and its log entry in one transaction — and
`settle()` records what was written, or `roll_back()` puts the queue back when the write failed.
`set_grade()`, `accept()` and the others take the steps at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from studio.domain.errors import UsageError
from studio.domain.frames import EVERY_TOPIC, TopicChoice
from studio.domain.rows import LABEL_ACTIONS, QUEUE_ACTIONS, Decision, Disagreement
from studio.domain.steps import ReviewStep
from studio.domain.views import PairView, ReviewFilters, Stats
from studio.services.facade.core import ProjectCore
from studio.services.facade.lazy import lazy_module
from studio.services.meta.review_queue import disagreements
from studio.services.review.pair_views import ViewedPairs, read_pair_views
from studio.services.review.stats import tau_and_kappa
from studio.services.session import InteractiveSession
from studio.services.writes.owners import owned_by
from studio.store import Connection
from studio.store import review as review_store
from studio.store.runs import pairs_retrieved

if TYPE_CHECKING:
    from studio.services.audit import assessments as audit_assessments
    from studio.services.audit import assignment as audit_assignment
    from studio.services.review import conflicts
else:  # only a review of an audit's conflicts uses them, and they bring the audits' sampling and
    # statistics: imported when first used, not on every Review's start
    audit_assessments = lazy_module("studio.services.audit.assessments")
    audit_assignment = lazy_module("studio.services.audit.assignment")
    conflicts = lazy_module("studio.services.review.conflicts")


class ReviewSession(InteractiveSession[ReviewStep, Decision | None]):
    def __init__(
        self,
        project: ProjectCore,
        ref: str,
        qrels: str,
        *,
        measure: str = "nDCG@10",
        filters: ReviewFilters | None = None,
        person: str | None = None,
        topics: TopicChoice = EVERY_TOPIC,
    ) -> None:
        self.filters = filters or ReviewFilters()
        self.topics = topics  # the topics the queue, τ and κ stand on
        if self.filters.conflicts is not None:  # the audit's own sets: its LLM set and its gold set
            ref, qrels = (
                str(audit_assignment.audit_record(project.db.cursor(), self.filters.conflicts)["label_set"]),
                self.filters.conflicts,
            )
        if ref == qrels:
            raise UsageError("review two different label sets")
        self.project, self.ref, self.qrels, self.measure = project, ref, qrels, measure
        self.person = person
        self.queue: list[Disagreement] = []
        self.position = 0
        self.decided: dict[tuple[str, str], Decision] = {}
        self.flagged: set[tuple[str, str]] = set()
        self.notes: dict[tuple[str, str], list[str]] = {}
        self.start = Stats(None, None)
        self.decisions_made = 0
        self.owned: str | None = None  # why the audited set takes no grade here (derived, an audit's gold)
        self.moves: list[ReviewStep] = []  # this sitting's steps that moved the queue, oldest first

    # -- loading ---------------------------------------------------------------------------------

    def load(self) -> None:
        """Build the queue (undecided pairs first, skipped ones last) and the starting statistics."""
        engine = self.project.engine
        if self.filters.conflicts is not None:
            pairs = conflicts.conflict_queue(self.project, self.ref, self.qrels)
        else:
            pairs = disagreements(
                engine, self.ref, self.qrels, self.measure, topics=self.topics, order=self.filters.order
            )
        pairs = [p for p in pairs if self.filters.wants(p)]
        if self.filters.run is not None:
            retrieved = self._retrieved_by(self.filters.run)
            pairs = [p for p in pairs if (p["qid"], p["docid"]) in retrieved]
        con = self.project.db.cursor()
        logged = review_store.decisions(con, self.ref, self.qrels)
        done: set[tuple[str, str]] = set()
        skipped: set[tuple[str, str]] = set()
        for decision in reversed(logged):  # oldest first: the newest decision of a pair wins
            pair = (decision["qid"], decision["docid"])
            if decision["action"] in LABEL_ACTIONS:
                done.add(pair)
                self.decided[pair] = decision
            elif decision["action"] == "skip":
                skipped.add(pair)
            elif decision["action"] == "flag":
                self.flagged.add(pair)
            elif decision["action"] == "note" and decision["note"]:
                self.notes.setdefault(pair, []).append(decision["note"])
        fresh = [p for p in pairs if (p["qid"], p["docid"]) not in done | skipped]
        later = [p for p in pairs if (p["qid"], p["docid"]) in skipped - done]
        self.queue, self.position = fresh + later, 0
        self.owned = owned_by(con, self.qrels) if self.filters.conflicts is None else None
        self.start = self.stats()

    def _retrieved_by(self, run: str) -> set[tuple[str, str]]:
        pairs = pairs_retrieved(self.project.db.cursor(), run)
        if not pairs:
            raise UsageError(f"no run named {run!r}")
        return pairs

    # -- what is shown ---------------------------------------------------------------------------

    @property
    def done(self) -> bool:
        return self.position >= len(self.queue)

    def current(self) -> Disagreement | None:
        return None if self.done else self.queue[self.position]

    def upcoming(self, count: int) -> list[Disagreement]:
        """The current pair and the ones after it, `count` in all (what a front end reads ahead)."""
        return self.queue[self.position : self.position + count]

    def pair_view(self, pair: Mapping[str, Any]) -> PairView:
        """What is shown of `pair` (a queue entry), read from the file and the leaderboards, without
        this sitting's marks (`marked` adds them); the caller holds the project's lock."""
        return self.pair_views([pair])[0]

    def pair_views(self, pairs: Sequence[Mapping[str, Any]]) -> list[PairView]:
        """`pair_view` of each of `pairs`, their texts and judgments read in one query each (a front
        end reads several pairs ahead); the caller holds the project's lock."""
        conflicts_shown = bool(self.filters.conflicts)
        viewed = ViewedPairs(self.ref, self.qrels, self.measure, self._audited_topics(), conflicts_shown)
        return read_pair_views(self.project, viewed, pairs)

    def _audited_topics(self) -> tuple[str, ...] | None:
        """The topics the audited leaderboard stands on in this review's frame (None: all it labels)."""
        frame = self.start.frame
        return None if frame is None or frame.whole else frame.qrels_topics()

    def marked(self, view: PairView) -> PairView:
        """`view` with what this review knows of its pair: the decision, the flag, the notes."""
        pair = (view.qid, view.docid)
        return replace(
            view, decision=self.decided.get(pair), flagged=pair in self.flagged, notes=list(self.notes.get(pair, []))
        )

    def view(self) -> PairView | None:
        pair = self.current()
        return None if pair is None else self.marked(self.pair_view(pair))

    def stats(self) -> Stats:
        """Kendall τ of the two leaderboards and graded Cohen's κ of the shared labels, now."""
        tau, kappa, frame = tau_and_kappa(self.project.engine, self.ref, self.qrels, self.measure, self.topics)
        if self.start.tau is None and self.start.kappa is None:
            return Stats(tau, kappa, frame=frame)
        return Stats(tau, kappa, _change(tau, self.start.tau), _change(kappa, self.start.kappa), frame)

    def history(self, limit: int = 12) -> list[Decision]:
        return review_store.decisions(self.project.db.cursor(), self.ref, self.qrels, limit)

    @property
    def read_only(self) -> str | None:
        """Why decisions that set a grade are refused, when they are: the audited set is derived, or
        an audit's gold set (its grades go through the audit; its conflicts are adjudicated here)."""
        return self.owned

    # -- decisions, at once ----------------------------------------------------------------------

    def set_grade(self, grade: float) -> Decision:
        """The auditor's grade for the audited label set, then the next pair."""
        return self._taken(self.decide("grade", grade=grade))

    def accept(self) -> Decision:
        """Keep the audited (LLM) label, confirmed by a person, then the next pair."""
        return self._taken(self.decide("accept"))

    def keep_reference(self) -> Decision:
        """Give the audited label set the reference grade, then the next pair."""
        return self._taken(self.decide("reference"))

    def skip(self) -> Decision:
        return self._taken(self.decide("skip"))

    def flag(self) -> Decision:
        """Mark the pair for a second look (the queue stays where it is)."""
        return self._taken(self.decide("flag"))

    def note(self, text: str) -> Decision:
        return self._taken(self.decide("note", note=text))

    def undo(self) -> Decision | None:
        """Revert the newest decision of this review that moved the queue; show its pair again."""
        return self.take(self.undo_step())

    def _taken(self, step: ReviewStep) -> Decision:
        written = self.take(step)
        assert written is not None  # only an undo may find nothing to write
        return written

    # -- decisions in two steps ------------------------------------------------------------------

    def decide(self, action: str, *, grade: float | None = None, note: str | None = None) -> ReviewStep:
        """Apply a decision on the current pair to the queue, in memory: a grade, accept, reference
        or skip makes the next pair current; flag and note stay. Nothing is written yet."""
        pair = self._require_pair()
        if action in LABEL_ACTIONS and self.read_only is not None:
            raise UsageError(f"{self.read_only}; skip, flag and note still work")
        step = ReviewStep(action, pair["qid"], pair["docid"], self.position, grade=grade, note=note)
        if action in QUEUE_ACTIONS:
            self.position += 1
            self.moves.append(step)
        return step

    def undo_step(self) -> ReviewStep:
        """The undo of the newest decision, applied to the queue at once when this sitting made that
        decision (its pair is current again); otherwise the write finds it in the log."""
        before = self.position
        if not self.moves:
            return ReviewStep("undo", "", "", before)
        last = self.moves.pop()
        self._show((last.qid, last.docid))
        return ReviewStep("undo", last.qid, last.docid, before, reverts=last)

    def write(self, step: ReviewStep) -> Decision | None:
        """Save a step: the decision as logged (for an undo, the decision it reverted; None when
        there was none). Raises UsageError for a grade the pair lacks; nothing is written then."""
        if step.action == "undo":
            return self._write_undo()
        pair = {"qid": step.qid, "docid": step.docid}
        if step.action in LABEL_ACTIONS:
            return self._label(pair, step.action, self._grade_of(step))
        if step.action not in ("skip", "flag", "note"):
            raise UsageError(f"no review decision {step.action!r}")
        return self._log(pair, step.action, **({"note": step.note} if step.action == "note" else {}))

    def settle(self, step: ReviewStep, written: Decision | None) -> None:
        """Record in memory what `write(step)` saved."""
        pair = (step.qid, step.docid)
        if step.action in LABEL_ACTIONS and written is not None:
            self.decided[pair] = written
            self.decisions_made += 1
        elif step.action == "flag":
            self.flagged.add(pair)
        elif step.action == "note" and step.note:
            self.notes.setdefault(pair, []).append(step.note)
        elif step.action == "undo" and written is not None:
            undone = (written["qid"], written["docid"])
            self.decided.pop(undone, None)
            self.decisions_made = max(0, self.decisions_made - 1)
            if undone != pair:  # not the pair shown at once (another sitting's decision)
                self._show(undone)

    def roll_back(self, step: ReviewStep) -> None:
        """Take back a step whose write failed (steps made after it first): its pair is current again."""
        if step.action in QUEUE_ACTIONS and self.moves and self.moves[-1] is step:
            self.moves.pop()
        if step.reverts is not None:
            self.moves.append(step.reverts)
        self.position = min(step.position, len(self.queue))

    def _grade_of(self, step: ReviewStep) -> float:
        if step.action == "grade":
            if step.grade is None:
                raise UsageError("a grade decision needs the grade")
            return step.grade
        with self.project.lock:
            ref_grade, grade = self._grades(step.qid, step.docid)
        if step.action == "accept":
            if grade is None:
                raise UsageError("the audited label set has no label for this pair")
            return grade
        if ref_grade is None:
            raise UsageError("the reference has no label for this pair")
        return ref_grade

    def _grades(self, qid: str, docid: str) -> tuple[float | None, float | None]:
        """The pair's reference grade and audited grade now."""
        ref = self.project.engine.evaluator(self.ref).labels.get(qid)
        aud = self.project.engine.evaluator(self.qrels).labels.get(qid)
        return (ref.judged.get(docid) if ref else None), (aud.judged.get(docid) if aud else None)

    def _write_undo(self) -> Decision | None:
        con = self.project.db.cursor()
        last = next(
            (d for d in review_store.decisions(con, self.ref, self.qrels) if d["action"] in QUEUE_ACTIONS), None
        )
        if last is None:
            return None
        pair = {"qid": last["qid"], "docid": last["docid"]}
        reverted = None
        if last["label_event"] is not None:
            # The revert and its log entry in one transaction: never a reverted grade the log misses.
            reverted = self.project.writes.revert(
                int(last["label_event"]),
                person=self.person,
                also=lambda tx, _: self._decision(tx, pair, "undo", undoes=int(last["decision"])),
            )
        if reverted is None:  # no grade to revert (a skip), or it was reverted elsewhere already
            self._log(pair, "undo", undoes=int(last["decision"]))
        return last

    def go(self, step: int) -> None:
        """Previous (-1) or next (+1) pair without deciding."""
        self.position = min(max(self.position + step, 0), len(self.queue))

    def revisit(self, qid: str, docid: str) -> None:
        """Show a decided pair again (from the history), to decide it anew."""
        self._show((qid, docid))

    # -- helpers ---------------------------------------------------------------------------------

    def _show(self, pair: tuple[str, str]) -> None:
        """Make `pair` current: its place in the queue, or a new place here (its grades then come
        with its view: this runs on a front end's UI thread and reads nothing)."""
        for index, item in enumerate(self.queue):
            if (item["qid"], item["docid"]) == pair:
                self.position = index
                return
        entry = Disagreement(qid=pair[0], docid=pair[1], ref_grade=None, grade=None, delta_tau=0.0, distance=None)
        self.queue.insert(self.position, entry)

    def _require_pair(self) -> Disagreement:
        pair = self.current()
        if pair is None:
            raise UsageError("the queue is done")
        return pair

    def _label(self, pair: Mapping[str, Any], action: str, grade: float) -> Decision:
        logged: list[Decision] = []
        if self.filters.conflicts is not None:  # the decision adjudicates: the gold grade, assessors' kept
            log = lambda tx, event: logged.append(  # noqa: E731
                self._decision(tx, pair, action, grade=grade, label_event=int(event["event"]))
            )
            audit_assessments.adjudicate(
                self.project.writes, self.qrels, pair["qid"], pair["docid"], grade, person=self.person, also=log
            )
            return logged[0]
        # The grade and its log entry in one transaction: a review killed at any point never
        # leaves an edit the log misses (the pair would come back as undecided).
        self.project.writes.edit(
            self.qrels,
            pair["qid"],
            pair["docid"],
            grade,
            note=f"review against {self.ref}: {action}",
            person=self.person,
            also=lambda tx, event: logged.append(
                self._decision(tx, pair, action, grade=grade, label_event=int(event["event"]))
            ),
        )
        return logged[0]

    def _log(self, pair: Mapping[str, Any], action: str, **fields: Any) -> Decision:
        with self.project.db.transaction() as tx:
            return self._decision(tx, pair, action, **fields)

    def _decision(self, tx: Connection, pair: Mapping[str, Any], action: str, **fields: Any) -> Decision:
        return review_store.add_decision(
            tx, self.ref, self.qrels, pair["qid"], pair["docid"], action, person=self.person, **fields
        )


def _change(now: float | None, then: float | None) -> float | None:
    return None if now is None or then is None else now - then
