"""A judge given up before its end lets go of its run.

A judge run's process is what tells a running run from an interrupted one. A process that lives
on after giving a judge up (the studio's window, after a cancel or an error) marks the run it
created as stopped, so that it reads as interrupted at once rather than when the window closes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator, Iterator
from functools import wraps
from typing import Concatenate, ParamSpec, TypeVar

from studio.domain.judging import JudgeSummary
from studio.store import Database
from studio.store import judging as judge_store

P = ParamSpec("P")
E = TypeVar("E")


def lets_go_when_given_up(
    judge: Callable[Concatenate[Database, P], Iterator[E]],
) -> Callable[Concatenate[Database, P], Generator[E, None, None]]:
    """Wrap a judge's event generator: closed before its summary, or failing, it stops the runs
    it created (a finished run is never touched)."""

    @wraps(judge)
    def wrapper(db: Database, /, *args: P.args, **kwargs: P.kwargs) -> Generator[E, None, None]:
        thread = threading.get_ident()
        before = len(judge_store.runs_created_here())
        created: list[int] = []
        summarised = False
        events = judge(db, *args, **kwargs)
        try:
            for event in events:
                # Taken in the iterating thread: a generator may be closed from another one.
                created = judge_store.runs_created_here()[before:]
                summarised = isinstance(event, JudgeSummary)
                yield event
        finally:
            if isinstance(events, Generator):
                events.close()
            if threading.get_ident() == thread:
                created = judge_store.runs_created_here()[before:]
            if created and not summarised:
                with db.transaction() as tx:
                    judge_store.stop_judge_runs(tx, created)

    return wrapper
