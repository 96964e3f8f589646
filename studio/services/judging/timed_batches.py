"""Answers grouped by time: a long job writes what arrived at most `seconds` after the first of
a group arrived, in one short transaction, and holds the project file only then.

The backend runs on a thread of its own, so that a group is written on time even while the next
answer takes long (a slow model, a retried API call): a kill loses at most `seconds` of answers,
and none that was reported done.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from typing import TypeVar

T = TypeVar("T")
FLUSH_SECONDS = 0.5
MAX_BATCH = 64  # a fast backend's answers still come in short transactions, and a cancel is heard between them


class _End:
    pass


class _Failed:
    def __init__(self, error: BaseException) -> None:
        self.error = error


def timed_batches(items: Iterator[T], seconds: float = FLUSH_SECONDS, most: int = MAX_BATCH) -> Iterator[list[T]]:
    """The items in arrival order, in lists of at most `most` handed on `seconds` after their
    first item arrived (or when the items end). Closing this generator stops the producer after
    its current item."""
    arrived: queue.Queue[T | _End | _Failed] = queue.Queue()
    stop = threading.Event()

    def produce() -> None:
        try:
            for item in items:
                arrived.put(item)
                if stop.is_set():
                    break
        except BaseException as error:  # handed to the consumer, which raises it
            arrived.put(_Failed(error))
            return
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()
        arrived.put(_End())

    producer = threading.Thread(target=produce, name="answers", daemon=True)
    producer.start()
    try:
        ended = False
        while not ended:
            first = arrived.get()
            if isinstance(first, _End):
                return
            if isinstance(first, _Failed):
                raise first.error
            batch = [first]
            deadline = time.monotonic() + seconds
            while len(batch) < most and (remaining := deadline - time.monotonic()) > 0:
                try:
                    item = arrived.get(timeout=remaining)
                except queue.Empty:
                    break
                if isinstance(item, _Failed):
                    yield batch
                    raise item.error
                if isinstance(item, _End):
                    ended = True
                    break
                batch.append(item)
            yield batch
    finally:
        stop.set()
