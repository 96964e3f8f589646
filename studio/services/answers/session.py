"""Checking an answers label set's verdicts one (topic, system) at a time, as Review checks the labels
of passages: a person keeps a verdict (it stands as a person's) or overrides it with a grade on the
set's scale; each check is an audited label event of the set (`studio history`, `studio undo`).

The session walks the set's answers topic by topic (byte order), then by system, and opens at the
first one no person has checked. It is an interactive session (`studio.services.session`): `decide()`
and `keep()` apply a check in memory and make the next answer not checked current at once; `write()`
saves it (off a front end's UI thread), then `settle()` or, when it failed, `roll_back()`;
`undo_step()` takes back the newest check. `figures()` reads what a check moves from the file: the
answers' leaderboard under every answers label set and τ between the set's order of the systems and
each other set's (docs/answers.md).
"""

from __future__ import annotations

import json

from studio.domain.answer_results import (
    AnswerCard,
    AnswerFigures,
    AnswerSaved,
    AnswerScoreRow,
    ExemplarShown,
    answer_grade_keys,
)
from studio.domain.choices import AnswerMethod
from studio.domain.errors import UsageError
from studio.domain.models import ANSWER_PREFIX
from studio.domain.steps import UNDO, AnswerStep
from studio.services.answers.leaderboard import method_agreement, score_rows
from studio.services.answers.sets import AnswerSet, answer_set
from studio.services.answers.verdicts import answer_card, answer_keys, check_verdict
from studio.services.facade.core import ProjectCore
from studio.services.session import InteractiveSession
from studio.store import Connection
from studio.store import answers as answer_store
from studio.store import judging as judge_store
from studio.store import labels as label_store
from studio.store.evaluation import load_labels
from studio.store.pools import passage_texts

AnswerKey = tuple[str, str]  # (qid, system)
KEEP, OVERRIDE = "keep", "override"


class AnswerSession(InteractiveSession[AnswerStep, AnswerSaved | None]):
    def __init__(self, project: ProjectCore, label_set: str, *, person: str | None = None) -> None:
        self.project, self.label_set, self.person = project, label_set, person
        self.answers: AnswerSet | None = None  # the set as loaded: its method and scale
        self.method = AnswerMethod.graded
        self.scale = 3
        self.keys: list[AnswerKey] = []
        self.verdicts: dict[AnswerKey, float | None] = {}  # the set's verdicts as this sitting has them
        self.checked: set[AnswerKey] = set()  # a person's check stands
        self.others: dict[str, AnswerSet] = {}  # every other answers set (not a tournament), by name
        self.other_rows: list[AnswerScoreRow] | None = None  # their leaderboard rows, read once
        self.position = 0
        self.decided: list[AnswerStep] = []  # this sitting's checks still standing, oldest first
        self.checked_now = 0

    def load(self) -> None:
        """Read the set's verdicts, the checks that stand and the other answers sets' verdicts."""
        con = self.project.db.cursor()
        answers = answer_set(con, self.label_set)
        if answers.method is AnswerMethod.tournament:
            raise UsageError(
                f"{self.label_set} is a tournament between answers: its verdicts are its matches, not labels to check"
            )
        self.answers, self.method, self.scale = answers, answers.method, answers.scale
        found = answer_keys(con, self.label_set)
        self.keys = [(key["qid"], key["system"]) for key in found]
        self.verdicts = {(key["qid"], key["system"]): key["verdict"] for key in found}
        standing = answer_store.checked_answers(con, answers.set_id)
        self.checked = {(qid, docid.removeprefix(ANSWER_PREFIX)) for qid, docid in standing}
        self.others = {}
        for name in answer_store.answer_label_sets(con):
            other = answer_set(con, name) if name != self.label_set else None
            if other is not None and other.method is not AnswerMethod.tournament:
                self.others[name] = other
        self.other_rows = None
        self.position = self._next_unchecked(-1)

    # -- what is shown ---------------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        """Every verdict of the set is checked."""
        return all(key in self.checked for key in self.keys)

    def progress(self) -> tuple[int, int]:
        return sum(key in self.checked for key in self.keys), len(self.keys)

    def current(self) -> AnswerKey | None:
        return self.keys[self.position] if self.keys else None

    def upcoming(self, count: int) -> list[AnswerKey]:
        """The current answer and the ones after it, `count` in all (what a front end reads ahead)."""
        return self.keys[self.position : self.position + count] if self.keys else []

    def grade_keys(self) -> tuple[int, ...]:
        """The grades a person may give this set's verdicts."""
        return answer_grade_keys(self.method.value, self.scale)

    def method_verdicts(self, key: AnswerKey) -> list[tuple[str, str, float | None]]:
        """(label set, method, verdict) of `key`'s answer under this set (as this sitting has it),
        then under every other answers set (None: that set has no verdict on it)."""
        qid, system = key
        found = [(self.label_set, self.method.value, self.verdicts.get(key))]
        for name, other in sorted(self.others.items()):
            found.append((name, other.method.value, other.verdicts.get(system, {}).get(qid)))
        return found

    def card(self, key: AnswerKey) -> AnswerCard:
        """The answer, the query, and the exemplars or subtopics behind the verdict, read from the file
        (an embedding verdict's exemplars: the topic's Best passages it was compared with)."""
        con = self.project.db.cursor()
        card = answer_card(con, self.label_set, *key)
        if self.method is AnswerMethod.embedding and not card["exemplars"] and self.answers is not None:
            best = best_of_reference(con, self.answers.set_id, key[0])
            texts = passage_texts(con, [(key[0], docid) for docid in best])
            card["exemplars"] = [
                ExemplarShown(
                    docid=d, text=texts.get((key[0], d)), exemplar_first=None, answer_first=None, outcome=None
                )
                for d in best
            ]
        return card

    def go(self, offset: int) -> None:
        """Show the answer `offset` places on (back when negative), within the set; nothing is written."""
        if self.keys:
            self.position = min(max(self.position + offset, 0), len(self.keys) - 1)

    # -- checking at once (the Python API) -------------------------------------------------------

    def keep_verdict(self) -> AnswerSaved | None:
        return self.take(self.keep())

    def override(self, value: float) -> AnswerSaved | None:
        return self.take(self.decide(value))

    def undo(self) -> AnswerSaved | None:
        return self.take(self.undo_step())

    # -- checking in two steps -------------------------------------------------------------------

    def decide(self, value: float) -> AnswerStep:
        """Override the current verdict with `value` (a grade on the set's scale), in memory."""
        allowed = self.grade_keys()
        if not allowed:
            raise UsageError(
                f"{self.label_set}'s {self.method} verdicts are not grades: keep one, or judge the answers again"
            )
        if value not in allowed:
            said = ", ".join(str(g) for g in allowed)
            raise UsageError(f"a {self.method} verdict of {self.label_set} is one of {said}, not {value:g}")
        return self._check(OVERRIDE, value)

    def keep(self) -> AnswerStep:
        """Keep the current verdict as it is: it stands as a person's, in memory."""
        key = self.current()
        value = self.verdicts.get(key) if key is not None else None
        if value is None:
            raise UsageError("no verdict to keep here")
        return self._check(KEEP, value)

    def _check(self, action: str, value: float) -> AnswerStep:
        key = self.current()
        if key is None or self.answers is None:
            raise UsageError(f"{self.label_set} holds no verdict on an answer")
        check_verdict(self.answers, value, self.scale)
        step = AnswerStep(
            action, key[0], key[1], self.position, value, self.verdicts.get(key), was_checked=key in self.checked
        )
        self.verdicts[key] = value
        self.checked.add(key)
        self.decided.append(step)
        self.position = self._next_unchecked(self.position)
        return step

    def undo_step(self) -> AnswerStep:
        """The undo of the newest check: its answer is current at once when this sitting checked it."""
        before = self.position
        if not self.decided:
            return AnswerStep(UNDO, "", "", before)
        last = self.decided.pop()
        key = (last.qid, last.system)
        self.verdicts[key] = last.before
        if not last.was_checked:
            self.checked.discard(key)
        self.position = self._index(key)
        return AnswerStep(UNDO, last.qid, last.system, before, reverts=last)

    def write(self, step: AnswerStep) -> AnswerSaved | None:
        """Save a step: a check is an audited edit of the set's label of the answer; an undo reverts
        the set's newest person edit (None: none stands)."""
        if step.action == UNDO:
            return self._write_undo()
        assert step.value is not None
        note = "answers: verdict kept" if step.action == KEEP else f"answers: verdict overridden (was {step.before:g})"
        self.project.set_answer_verdict(
            self.label_set, step.qid, step.system, step.value, note=note, person=self.person
        )
        return AnswerSaved(step.qid, step.system, step.value, True)

    def _write_undo(self) -> AnswerSaved | None:
        undone = self.project.writes.undo(self.label_set, person=self.person)
        if undone is None:
            return None
        qid, docid = str(undone["qid"]), str(undone["docid"])
        answers = answer_set(self.project.db.cursor(), self.label_set)
        checked = (qid, docid) in answer_store.checked_answers(self.project.db.cursor(), answers.set_id)
        return AnswerSaved(qid, docid.removeprefix(ANSWER_PREFIX), undone["grade"], checked)

    def settle(self, step: AnswerStep, written: AnswerSaved | None) -> None:
        """Record in memory what `write(step)` saved: an undo's answer, as the file has it now."""
        if written is None:
            return
        key = (written.qid, written.system)
        self.verdicts[key] = written.verdict
        if written.checked:
            self.checked.add(key)
        else:
            self.checked.discard(key)
        if step.action != UNDO:
            self.checked_now += 1
            return
        self.checked_now = max(0, self.checked_now - 1)
        if key != (step.qid, step.system) and key in self.keys:  # not the answer shown at once
            self.position = self.keys.index(key)

    def roll_back(self, step: AnswerStep) -> None:
        """Take back a step whose write failed (steps made after it first): its answer is current again."""
        if step.action == UNDO:
            if step.reverts is not None:
                reverted = step.reverts
                self.decided.append(reverted)
                self.verdicts[(reverted.qid, reverted.system)] = reverted.value
                self.checked.add((reverted.qid, reverted.system))
        else:
            if self.decided and self.decided[-1] is step:
                self.decided.pop()
            key = (step.qid, step.system)
            self.verdicts[key] = step.before
            if not step.was_checked:
                self.checked.discard(key)
        self.position = step.position

    # -- what a check moves ----------------------------------------------------------------------

    def figures(self) -> AnswerFigures:
        """The answers' leaderboard (this set's rows first, then every other set's) and τ between
        this set's order of the systems and each other set's, as the file has them now."""
        con = self.project.db.cursor()
        rows = score_rows(answer_set(con, self.label_set))
        if self.other_rows is None:  # the other sets do not change with this set's checks
            self.other_rows = [row for name in sorted(self.others) for row in score_rows(answer_set(con, name))]
        agreements = [method_agreement(con, self.label_set, name) for name in sorted(self.others)]
        return AnswerFigures(self.label_set, [*rows, *self.other_rows], agreements)

    # -- helpers ---------------------------------------------------------------------------------

    def _index(self, key: AnswerKey) -> int:
        return self.keys.index(key) if key in self.keys else self.position

    def _next_unchecked(self, after: int) -> int:
        """The first answer not checked after place `after`, from the start again when none is; once
        every one is checked, the next (or the last)."""
        count = len(self.keys)
        for step in range(1, count + 1):
            index = (after + step) % count
            if self.keys[index] not in self.checked:
                return index
        return min(max(after + 1, 0), max(count - 1, 0))


def best_of_reference(con: Connection, set_id: int, qid: str) -> list[str]:
    """The topic's Best passages under the reference the set's newest (embedding) judge run compared
    with: those with the topic's top grade, when it is at least 1 (docs/answers.md)."""
    newest = judge_store.newest_judge_run(con, set_id)
    params = json.loads(newest[2]) if newest is not None else {}
    ref = params.get("ref") or (params.get("config") or {}).get("ref") or "human"
    ref_id = label_store.label_set_id(con, str(ref))
    grades = load_labels(con, ref_id).get(qid, {}) if ref_id is not None else {}
    top = max(grades.values(), default=0.0)
    return sorted(d for d, g in grades.items() if g == top) if top >= 1 else []
