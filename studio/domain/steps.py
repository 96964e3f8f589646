"""A person's decision in an interactive session (Review, the blind audit; `studio.services.session`):
applied to the session's queue at once, in memory, so that the next pair shows without waiting for
the project file, then written. Each step remembers where the queue stood, so that a write that
fails can be undone on the screen."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from studio.domain.views import Reveal

UNDO = "undo"  # the action of the step that undoes the newest decision, in every session


class Step(Protocol):
    """A decision in memory (`studio.services.session`): what it does (`UNDO`, or the session's own
    actions)."""

    @property
    def action(self) -> str: ...


@dataclass(frozen=True, eq=False)  # compared by identity: two equal keys are two decisions
class ReviewStep:
    """One Review key: grade, accept, reference, skip, flag, note or undo of pair (qid, docid)."""

    action: str
    qid: str
    docid: str
    position: int  # the queue's place before the step
    grade: float | None = None  # the auditor's grade (action "grade")
    note: str | None = None
    reverts: ReviewStep | None = None  # the step an undo took back on the screen, when it knew it

    @property
    def known(self) -> bool:
        """Whether the step names its pair (an undo that did not know the decision it reverts does not)."""
        return bool(self.qid)


@dataclass(frozen=True, eq=False)
class AuditStep:
    """One blind-audit key: a gold grade of pair (qid, docid), or the undo of the newest grade."""

    action: str  # grade or undo
    qid: str
    docid: str
    position: int | None  # the audit's place before the step
    grade: float | None = None
    was_done: bool = False  # the pair was graded already (shown again by an undo)
    was_skipped: bool = False  # the pair had been left for later in this sitting
    reverts: AuditStep | None = None


# What writing an AuditStep answers: a grade's reveal (what the LLM had said of the pair), an undo's
# pair (None: no grade stands to undo).
AuditWritten = Reveal | tuple[str, str] | None


@dataclass(frozen=True, eq=False)
class AnswerStep:
    """One Answers-screen key: keep or override the verdict of (qid, system)'s answer, or the undo of
    the newest check."""

    action: str  # keep, override or undo
    qid: str
    system: str
    position: int  # the session's place before the step
    value: float | None = None  # the verdict kept or given
    before: float | None = None  # the verdict before the step (what a roll back puts back)
    was_checked: bool = False  # a person's check of the verdict stood before the step
    reverts: AnswerStep | None = None  # the step an undo took back on the screen, when it knew it
