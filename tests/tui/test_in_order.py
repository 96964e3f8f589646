"""The queue that lets one worker at a time write the keys' decisions in order."""

from __future__ import annotations

import threading

from studio.tui.in_order import InOrder


def test_the_first_item_asks_for_a_worker_and_the_worker_takes_them_in_order() -> None:
    queue: InOrder[int] = InOrder()
    assert queue.add(1) is True  # no worker yet: the caller starts one
    assert queue.add(2) is False and queue.add(3) is False  # the worker will take them
    assert [queue.take(), queue.take(), queue.take()] == [1, 2, 3]
    assert queue.take() is None  # the worker ends here
    assert queue.add(4) is True  # and the next item starts another


def test_a_failure_drops_what_was_queued_after_it() -> None:
    queue: InOrder[str] = InOrder()
    queue.add("a")
    queue.add("b")
    queue.add("c")
    assert queue.take() == "a"
    assert queue.drop() == ["b", "c"]
    assert queue.take() is None
    queue.add("d")
    queue.abandon()  # a worker that stopped on a bug lets the next item start a worker
    assert queue.take() is None and queue.add("e") is True


def test_items_added_while_a_worker_drains_are_each_taken_once_in_order() -> None:
    queue: InOrder[int] = InOrder()
    taken: list[int] = []
    workers: list[threading.Thread] = []

    def drain() -> None:
        while (item := queue.take()) is not None:
            taken.append(item)

    for item in range(2000):  # the UI thread, adding while workers come and go
        if queue.add(item):
            worker = threading.Thread(target=drain)
            workers.append(worker)
            worker.start()
    for worker in workers:
        worker.join(timeout=30)
    assert taken == list(range(2000))
    assert len(workers) >= 1
