"""The studio's keys as the command palette and F1 list them: the current screen's own keys first,
then the app's (screens, help, quit), never the generic keys of the focused widget (scrolling,
focus, copying), which every Textual app has and the palette would otherwise list first."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.screen import Screen


@dataclass(frozen=True)
class StudioKey:
    key: str  # as the keyboard shows it
    title: str
    help: str
    run: Callable[[], Any]
    of_app: bool  # an app key (screens, help, quit), not the screen's own


def command_title(binding: Binding) -> str:
    """The name of a key's command: its footer label, unless one footer entry stands for several
    keys (`0–3 Grade`); then each key's own (`Grade 0`)."""
    description = binding.description
    if binding.key_display and binding.key_display != binding.key:
        return f"{description} {binding.key}"
    return description


def studio_keys(screen: Screen[Any]) -> list[StudioKey]:
    """The enabled keys the studio itself defines (each has an id), the screen's before the app's."""
    app = screen.app
    found: list[StudioKey] = []
    for key, active in screen.active_bindings.items():
        binding = active.binding
        if not active.enabled or not binding.description or binding.id is None:
            continue  # Textual's own keys have no id
        shown = app.get_key_display(replace(binding, key_display=None))
        run = partial(app.run_action, binding.action, active.node)
        title = command_title(binding)
        found.append(StudioKey(shown, title, binding.tooltip or f"key {key}", run, active.node is app))
    return [k for k in found if not k.of_app] + [k for k in found if k.of_app]


class ScreenActions(Provider):
    """Offers only what applies now: the studio's enabled keys on the screen the palette was opened
    over, then the colour theme."""

    def _actions(self) -> list[tuple[str, str, Callable[[], Any]]]:
        # self.screen is the screen the palette was opened over, not the palette itself.
        found = [(k.title, f"{k.help} · key {k.key}", k.run) for k in studio_keys(self.screen)]
        found.append(("Theme", "Change the colours", self.app.action_change_theme))
        return found

    async def discover(self) -> Hits:
        for title, help_text, run in self._actions():
            yield DiscoveryHit(title, run, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, run in self._actions():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), run, help=help_text)
