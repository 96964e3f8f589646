"""Reviewing disagreements: one pair at a time, one key per decision, saved at once.

A review compares an audited label set (`qrels`, usually an LLM's) with a reference (`ref`,
usually the human one). The queue is `studio disagreements`' order (the most leaderboard-changing
pairs first), narrowed by filters; pairs decided in an earlier sitting are left out, pairs
skipped go last, so reopening a review resumes where it stopped. A decision that sets a grade
is an audited label edit of the audited set, made through the evaluation engine, so Kendall τ
and Cohen's κ are current after every key; every decision is also written to the review log.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from studio.domain.errors import UsageError
from studio.domain.views import PairView, ReviewFilters, Stats
from studio.metrics import agreement as agree
from studio.metrics.correlation import kendall_tau_b
from studio.services.evaluation.engine import measure_of
from studio.services.facade.core import ProjectCore
from studio.services.meta.comparison import disagreements
from studio.services.views.pair_context import leaderboard_moves, retrieved_by
from studio.store import Connection
from studio.store import review as review_store
from studio.store.pools import passage_texts, topic_texts

LABEL_ACTIONS = ("grade", "accept", "reference")  # decisions that write a label event
QUEUE_ACTIONS = (*LABEL_ACTIONS, "skip")  # decisions that take a pair out of the queue


class ReviewSession:
    def __init__(
        self,
        project: ProjectCore,
        ref: str,
        qrels: str,
        *,
        measure: str = "nDCG@10",
        filters: ReviewFilters | None = None,
        person: str | None = None,
    ) -> None:
        if ref == qrels:
            raise UsageError("review two different label sets")
        self.project, self.ref, self.qrels, self.measure = project, ref, qrels, measure
        self.filters = filters or ReviewFilters()
        self.person = person
        self.queue: list[dict[str, Any]] = []
        self.position = 0
        self.decided: dict[tuple[str, str], dict[str, Any]] = {}
        self.flagged: set[tuple[str, str]] = set()
        self.notes: dict[tuple[str, str], list[str]] = {}
        self.start = Stats(None, None)
        self.decisions_made = 0

    # -- loading ---------------------------------------------------------------------------------

    def load(self) -> None:
        """Build the queue (undecided pairs first, skipped ones last) and the starting statistics."""
        engine = self.project.engine
        pairs = disagreements(engine, self.ref, self.qrels, self.measure, order=self.filters.order)
        pairs = [p for p in pairs if self._wanted(p)]
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
        self.start = self.stats()

    def _wanted(self, pair: dict[str, Any]) -> bool:
        f = self.filters
        return (
            (f.topic is None or pair["qid"] == f.topic)
            and (f.ref_grade is None or pair["ref_grade"] == f.ref_grade)
            and (f.grade is None or pair["grade"] == f.grade)
        )

    def _retrieved_by(self, run: str) -> set[tuple[str, str]]:
        rows = (
            self.project.db.cursor()
            .execute(
                "SELECT DISTINCT r.qid, r.docid FROM run_rows r JOIN runs USING (run_id) WHERE runs.name = ?", [run]
            )
            .fetchall()
        )
        if not rows:
            raise UsageError(f"no run named {run!r}")
        return {(q, d) for q, d in rows}

    # -- what is shown ---------------------------------------------------------------------------

    @property
    def done(self) -> bool:
        return self.position >= len(self.queue)

    def current(self) -> dict[str, Any] | None:
        return None if self.done else self.queue[self.position]

    def view(self) -> PairView | None:
        pair = self.current()
        if pair is None:
            return None
        qid, docid = pair["qid"], pair["docid"]
        con = self.project.db.cursor()
        engine = self.project.engine
        ref_topic = engine.evaluator(self.ref).labels.get(qid)
        topic = engine.evaluator(self.qrels).labels.get(qid)
        ref_grade = ref_topic.judged.get(docid) if ref_topic else None
        outputs, item_grades = review_store.pair_judgments(con, qid, docid)
        return PairView(
            qid,
            docid,
            topic_texts(con, [qid]).get(qid, ""),
            passage_texts(con, [(qid, docid)]).get((qid, docid), ""),
            ref_grade,
            topic.judged.get(docid) if topic else None,
            pair["delta_tau"],
            outputs,
            item_grades,
            self.decided.get((qid, docid)),
            (qid, docid) in self.flagged,
            self.notes.get((qid, docid), []),
            retrieved_by(engine.rankings(), qid, docid, engine.evaluator(self.qrels).labels.get(qid)),
            leaderboard_moves(engine, self.qrels, self.measure, qid, docid, ref_grade),
        )

    def stats(self) -> Stats:
        """Kendall τ of the two leaderboards and graded Cohen's κ of the shared labels, now."""
        engine = self.project.engine
        measure = measure_of(self.measure)
        ref_eval, aud_eval = engine.evaluator(self.ref), engine.evaluator(self.qrels)
        tau_value = kendall_tau_b(ref_eval.means(measure), aud_eval.means(measure))  # `correlate`'s τ, alone
        tau = None if np.isnan(tau_value) else float(tau_value)
        ref_labels, aud_labels = ref_eval.labels, aud_eval.labels
        a: list[float] = []
        b: list[float] = []
        for qid, topic in ref_labels.items():
            other = aud_labels.get(qid)
            if other is None:
                continue
            for docid, grade in topic.judged.items():
                if docid in other.judged:
                    a.append(grade)
                    b.append(other.judged[docid])
        kappa = agree.cohen_kappa(np.array(a), np.array(b)) if a else float("nan")
        kappa_value = None if np.isnan(kappa) else float(kappa)
        if self.start.tau is None and self.start.kappa is None:
            return Stats(tau, kappa_value)
        return Stats(tau, kappa_value, _change(tau, self.start.tau), _change(kappa_value, self.start.kappa))

    def history(self, limit: int = 12) -> list[dict[str, Any]]:
        return review_store.decisions(self.project.db.cursor(), self.ref, self.qrels, limit)

    # -- decisions -------------------------------------------------------------------------------

    def set_grade(self, grade: float) -> dict[str, Any]:
        """The auditor's grade for the audited label set, then the next pair."""
        return self._label("grade", grade)

    def accept(self) -> dict[str, Any]:
        """Keep the audited (LLM) label, confirmed by a person, then the next pair."""
        view = self._require()
        if view.grade is None:
            raise UsageError("the audited label set has no label for this pair")
        return self._label("accept", view.grade)

    def keep_reference(self) -> dict[str, Any]:
        """Give the audited label set the reference grade, then the next pair."""
        view = self._require()
        if view.ref_grade is None:
            raise UsageError("the reference has no label for this pair")
        return self._label("reference", view.ref_grade)

    def skip(self) -> dict[str, Any]:
        pair = self._require_pair()
        decision = self._log(pair, "skip")
        self.position += 1
        return decision

    def flag(self) -> dict[str, Any]:
        """Mark the pair for a second look (the queue stays where it is)."""
        pair = self._require_pair()
        self.flagged.add((pair["qid"], pair["docid"]))
        return self._log(pair, "flag")

    def note(self, text: str) -> dict[str, Any]:
        pair = self._require_pair()
        self.notes.setdefault((pair["qid"], pair["docid"]), []).append(text)
        return self._log(pair, "note", note=text)

    def undo(self) -> dict[str, Any] | None:
        """Revert the newest decision of this review that moved the queue; show its pair again."""
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
        self.decided.pop((last["qid"], last["docid"]), None)
        self.decisions_made = max(0, self.decisions_made - 1)
        self._show((last["qid"], last["docid"]))
        return last

    def go(self, step: int) -> None:
        """Previous (-1) or next (+1) pair without deciding."""
        self.position = min(max(self.position + step, 0), len(self.queue))

    def revisit(self, qid: str, docid: str) -> None:
        """Show a decided pair again (from the history), to decide it anew."""
        self._show((qid, docid))

    # -- helpers ---------------------------------------------------------------------------------

    def _show(self, pair: tuple[str, str]) -> None:
        for index, item in enumerate(self.queue):
            if (item["qid"], item["docid"]) == pair:
                self.position = index
                return
        ref = self.project.engine.evaluator(self.ref).labels.get(pair[0])
        aud = self.project.engine.evaluator(self.qrels).labels.get(pair[0])
        self.queue.insert(
            self.position,
            {
                "qid": pair[0],
                "docid": pair[1],
                "delta_tau": 0.0,
                "ref_grade": ref.judged.get(pair[1]) if ref else None,
                "grade": aud.judged.get(pair[1]) if aud else None,
            },
        )

    def _require_pair(self) -> dict[str, Any]:
        pair = self.current()
        if pair is None:
            raise UsageError("the queue is done")
        return pair

    def _require(self) -> PairView:
        view = self.view()
        if view is None:
            raise UsageError("the queue is done")
        return view

    def _label(self, action: str, grade: float) -> dict[str, Any]:
        pair = self._require_pair()
        note = f"review against {self.ref}: {action}"
        logged: list[dict[str, Any]] = []
        # The grade and its log entry in one transaction: a review killed at any point never
        # leaves an edit the log misses (the pair would come back as undecided).
        self.project.writes.edit(
            self.qrels,
            pair["qid"],
            pair["docid"],
            grade,
            note=note,
            person=self.person,
            also=lambda tx, event: logged.append(
                self._decision(tx, pair, action, grade=grade, label_event=int(event["event"]))
            ),
        )
        decision = logged[0]
        self.decided[(pair["qid"], pair["docid"])] = decision
        self.decisions_made += 1
        self.position += 1
        return decision

    def _log(self, pair: dict[str, Any], action: str, **fields: Any) -> dict[str, Any]:
        with self.project.db.transaction() as tx:
            return self._decision(tx, pair, action, **fields)

    def _decision(self, tx: Connection, pair: dict[str, Any], action: str, **fields: Any) -> dict[str, Any]:
        decision_id = review_store.add_decision(
            tx, self.ref, self.qrels, pair["qid"], pair["docid"], action, person=self.person, **fields
        )
        return {"decision": decision_id, "qid": pair["qid"], "docid": pair["docid"], "action": action, **fields}


def _change(now: float | None, then: float | None) -> float | None:
    return None if now is None or then is None else now - then
