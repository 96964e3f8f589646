"""Writes done one after another, in the order the keys asked for them, by one thread worker at a time.

The UI thread adds an item and never waits (the lock below is held for a few instructions, never
across a write); the worker takes items until none is left and then ends, so that a test or the
app waiting for workers to finish is not kept waiting by an idle writer. The next item added
starts a new worker. Two writes never race, and a fast typist's keys are written in order.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Generic, TypeVar

Item = TypeVar("Item")


class InOrder(Generic[Item]):
    """A first-in, first-out queue of writes with at most one worker taking from it."""

    def __init__(self) -> None:
        self._items: deque[Item] = deque()
        self._taken = threading.Condition(threading.Lock())
        self._working = False

    def add(self, item: Item) -> bool:
        """Queue `item`; True when no worker is taking items, and the caller must start one."""
        with self._taken:
            self._items.append(item)
            if self._working:
                return False
            self._working = True
            return True

    def take(self) -> Item | None:
        """The worker's next item; None when there is none left: the worker then ends."""
        with self._taken:
            if self._items:
                return self._items.popleft()
            self._working = False
            self._taken.notify_all()
            return None

    def drop(self) -> list[Item]:
        """Take out every item not yet begun (a failed write cancels the ones made after it)."""
        with self._taken:
            dropped = list(self._items)
            self._items.clear()
            return dropped

    def abandon(self) -> None:
        """The worker stopped on an unexpected error: drop what is queued and let a new worker start."""
        with self._taken:
            self._items.clear()
            self._working = False
            self._taken.notify_all()

    def wait_until_done(self, timeout: float | None = None) -> bool:
        """Block (a worker thread, never the UI thread) until every queued item is written."""
        with self._taken:
            return self._taken.wait_for(lambda: not self._working and not self._items, timeout)

    @property
    def busy(self) -> bool:
        with self._taken:
            return self._working or bool(self._items)
