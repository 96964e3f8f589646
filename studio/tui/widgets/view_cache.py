"""What Review has read of the pairs ahead: each pair's view with the generation of the labels it
was read under (a decision landing starts a new one). The pair shown must be of the labels now;
the ones ahead may be older, and are read again when they become current. Used on the UI thread
only: the worker that reads is handed what to read and posts what it read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from studio.domain.views import PairView
from studio.tui.messages import Pair, key_of


class ViewCache:
    def __init__(self) -> None:
        self.views: dict[Pair, tuple[int, PairView]] = {}
        self.unread: dict[Pair, str] = {}  # why a pair could not be read
        self.asked: dict[Pair, int] = {}  # pairs being read, at which generation
        self.generation = 0  # counts the changes of the labels the views were read under

    def clear(self) -> None:
        self.views.clear()
        self.unread.clear()
        self.asked.clear()

    def wanted(self, upcoming: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
        """Of the current pair and the ones after it, those to read now (marked as asked for)."""
        found = []
        for place, pair in enumerate(upcoming):
            key = key_of(pair)
            have = self.views.get(key)
            if have is not None and (place > 0 or have[0] == self.generation):
                continue
            if self.asked.get(key) == self.generation:
                continue
            self.asked[key] = self.generation
            found.append(pair)
        return found

    def take(self, pair: Pair, generation: int, view: PairView | None, error: str | None = None) -> None:
        """Keep what a reader posted (read under `generation`), unless a view read under newer
        labels is kept already; `error` says why it could not be read."""
        if self.asked.get(pair) == generation:
            del self.asked[pair]
        have = self.views.get(pair)
        if view is not None and (have is None or have[0] <= generation):
            self.views[pair] = (generation, view)
            self.unread.pop(pair, None)
        elif error is not None:
            self.unread[pair] = error

    def keep(self, view: PairView) -> None:
        """A view read under the labels as they are now."""
        self.views[(view.qid, view.docid)] = (self.generation, view)

    def view(self, pair: Pair) -> PairView | None:
        have = self.views.get(pair)
        return None if have is None else have[1]
