"""Running a judge from a thread worker: progress and the end posted as messages, never a widget
touched. Each answer is saved before the next call, so a cancel loses nothing that was finished."""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

from textual.message import Message
from textual.worker import get_current_worker

from studio.domain.judging import JudgeProgress, JudgeSummary
from studio.tui.messages import JudgeFinished, JudgeProgressed

JudgeEvents = Generator[JudgeProgress | JudgeSummary, None, None]


def stream_judge(post: Callable[[Message], Any], start: Callable[[], JudgeEvents], label_set: str) -> None:
    """Run the judge `start()` begins, until done or until the worker is cancelled; post a
    JudgeProgressed per event and one JudgeFinished (summary, or None with the error if any)."""
    worker = get_current_worker()
    summary: JudgeSummary | None = None
    error: str | None = None
    events: JudgeEvents | None = None
    try:
        events = start()
        for event in events:
            if worker.is_cancelled:
                break
            if isinstance(event, JudgeProgress):
                post(JudgeProgressed(event))
            else:
                summary = event
    except Exception as failure:  # shown on the screen; the app's error handler also reports it
        error = str(failure)
        raise
    finally:
        if events is not None:
            events.close()
        post(JudgeFinished(label_set, summary, error))
