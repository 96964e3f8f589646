"""The command palette: every key action of the current screen, found by its description."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider


class ScreenActions(Provider):
    """Offers only what applies now: the enabled bindings of the focused screen."""

    def _actions(self) -> list[tuple[str, str, Callable[[], Any]]]:
        found: list[tuple[str, str, Callable[[], Any]]] = []
        # self.screen is the screen the palette was opened over, not the palette itself.
        for key, active in self.screen.active_bindings.items():
            binding = active.binding
            if not active.enabled or not binding.description:
                continue
            run = partial(self.app.run_action, binding.action, active.node)
            found.append((binding.description, binding.tooltip or f"key {key}", run))
        return found

    async def discover(self) -> Hits:
        for description, help_text, run in self._actions():
            yield DiscoveryHit(description, run, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for description, help_text, run in self._actions():
            score = matcher.match(description)
            if score > 0:
                yield Hit(score, matcher.highlight(description), run, help=help_text)
