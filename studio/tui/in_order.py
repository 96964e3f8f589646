"""Work done one after another, in the order the keys asked for it, by one thread worker at a time.

The UI thread adds an item and never waits (the lock below is held for a few instructions, never
across a write); the worker takes items until none is left and then ends, so that a test or the
app waiting for workers to finish is not kept waiting by an idle worker. The next item added
starts a new worker. Two writes never race, and a fast typist's keys are written in order.

One worker per queue also keeps the pool of threads that all workers share from filling up with
workers that wait for the project file (another process keeps it): a worker per key could take
every thread, and the one that would write could not start. No worker waits for another.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Generic, TypeVar

Item = TypeVar("Item")


class InOrder(Generic[Item]):
    """A first-in, first-out queue of work with at most one worker taking from it."""

    def __init__(self) -> None:
        self._items: deque[Item] = deque()
        self._lock = threading.Lock()
        self._working = False

    def add(self, item: Item) -> bool:
        """Queue `item`; True when no worker is taking items, and the caller must start one."""
        with self._lock:
            self._items.append(item)
            if self._working:
                return False
            self._working = True
            return True

    def take(self) -> Item | None:
        """The worker's next item; None when there is none left: the worker then ends."""
        with self._lock:
            if self._items:
                return self._items.popleft()
            self._working = False
            return None

    def drop(self) -> list[Item]:
        """Take out every item not yet begun (a failed write cancels the ones made after it)."""
        with self._lock:
            dropped = list(self._items)
            self._items.clear()
            return dropped

    def abandon(self) -> None:
        """The worker stopped on an unexpected error: drop what is queued and let a new worker start."""
        with self._lock:
            self._items.clear()
            self._working = False
