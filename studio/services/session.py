"""An interactive session: a person decides, one key at a time, and every decision is saved.

Review, the blind audit and an assessment campaign are sessions. Each decision is four steps, so
that a front end never waits for the project file:

1. **decide**: apply the person's choice to the session in memory, at once (the next pair is
   current before anything is written), and return the step that records it. Refused choices
   raise `UsageError` and change nothing.
2. **write**: save the step (off a front end's UI thread, one step after another in the order they
   were decided). A failed write raises a `StudioError` and writes nothing.
3. **settle**: record in memory what the write saved.
4. **roll back**: take back, in memory, a step whose write failed (and, before it, the steps decided
   after it, newest first): its pair is current again.

`undo_step()` decides the undo of the newest decision; `take()` writes and settles a step at once,
or rolls it back when the write fails (what the Python API and the command line use).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Generic, TypeVar

from studio.domain.steps import Step

StepT = TypeVar("StepT", bound=Step)
WrittenT = TypeVar("WrittenT")


class InteractiveSession(ABC, Generic[StepT, WrittenT]):
    """What every interactive session does; `StepT` is its decision in memory, `WrittenT` what a
    write answers (the decision as saved, or what an undo took back)."""

    @abstractmethod
    def decide(self, *args: Any, **kwargs: Any) -> StepT:
        """Apply a choice on the current pair in memory and return its step; nothing is written.
        Each session takes its own choices (Review an action, the audit and a campaign a grade)."""

    @abstractmethod
    def undo_step(self) -> StepT:
        """Decide the undo of the newest decision: its pair is current at once when this sitting
        made that decision; otherwise the write finds it in the project."""

    @abstractmethod
    def write(self, step: StepT) -> WrittenT:
        """Save `step` (the caller holds the project's lock); raises a `StudioError`, with nothing
        written, when it cannot be saved."""

    @abstractmethod
    def settle(self, step: StepT, written: WrittenT) -> None:
        """Record in memory what `write(step)` saved."""

    @abstractmethod
    def roll_back(self, step: StepT) -> None:
        """Take back a step whose write failed (the steps decided after it first): its pair is
        current again, as it was before the step."""

    def take(self, step: StepT) -> WrittenT:
        """Write and settle `step` at once; roll it back and raise when the write fails."""
        try:
            written = self.write(step)
        except BaseException:
            self.roll_back(step)
            raise
        self.settle(step, written)
        return written
