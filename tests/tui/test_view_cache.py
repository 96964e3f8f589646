"""Review's views read ahead: the pair shown is read again once the labels changed, the pairs
ahead only when they become current, and a view read under older labels never replaces a newer."""

from __future__ import annotations

from typing import Any

from studio.domain.views import PairView
from studio.tui.widgets.view_cache import ViewCache


def pair(docid: str) -> dict[str, Any]:
    return {"qid": "1001", "docid": docid}


def view(docid: str, grade: float) -> PairView:
    return PairView("1001", docid, "query", "passage", 3.0, grade, 0.0)


def test_the_pairs_ahead_are_read_once_and_the_current_one_again_after_a_change() -> None:
    cache = ViewCache()
    upcoming = [pair("a"), pair("b"), pair("c")]
    assert cache.wanted(upcoming) == upcoming
    assert cache.wanted(upcoming) == []  # asked for already
    for item in upcoming:
        cache.take(("1001", item["docid"]), 0, view(item["docid"], 1.0))
    assert cache.wanted(upcoming) == []
    cache.generation += 1  # a decision landed
    assert cache.wanted(upcoming) == [pair("a")]  # the one shown; b and c when they are shown
    assert cache.wanted(upcoming[1:]) == [pair("b")]


def test_a_view_read_under_older_labels_does_not_replace_a_newer_one() -> None:
    cache = ViewCache()
    cache.generation = 2
    cache.take(("1001", "a"), 2, view("a", 3.0))
    cache.take(("1001", "a"), 1, view("a", 0.0))  # a reader that was slower
    shown = cache.view(("1001", "a"))
    assert shown is not None and shown.grade == 3.0
    cache.take(("1001", "b"), 2, None, "the file is in use")
    assert cache.view(("1001", "b")) is None and cache.unread[("1001", "b")] == "the file is in use"
    assert cache.wanted([pair("b")]) == [pair("b")]  # asked for again
