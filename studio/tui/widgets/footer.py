"""The studio's footer: the screen's keys drawn as one line by one widget.

Textual's footer is a widget per key, and a group, and a label (Review has twenty-five): each is
styled, laid out and drawn on its own, and the footer composes them anew whenever the screen's
keys change, which a screen coming up does several times in a row. That was an eighth of the
Review screen's start. Here the keys are placed once per change (`place_keys`, the compact
footer's spacing: `0123 Grade a Accept … f2 f3 f4 f5 f6 Screen q Quit`, the command palette's key
at the right edge) and drawn as one line; a click on a key presses it, hovering one lights it and
shows what it does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import groupby

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.screen import Screen
from textual.widget import Widget

PALETTE_RULE = "▏"  # between the keys and the command palette's, as Textual's footer draws it


@dataclass(frozen=True)
class PlacedKey:
    """One key as the footer shows it: `display` (then `description`, if any) from column `x`."""

    key: str
    display: str
    description: str
    enabled: bool
    tooltip: str
    x: int

    @property
    def width(self) -> int:
        return len(self.display) + (len(self.description) + 1 if self.description else 0)

    @property
    def right(self) -> int:
        return self.x + self.width


@dataclass(frozen=True)
class PlacedLabel:
    """A group's one label (`Grade`, `Screen`) after its keys."""

    text: str
    x: int


@dataclass(frozen=True)
class FooterLine:
    """The footer's keys and labels placed left to right, and the command palette's key apart
    (drawn at the right edge, over whatever runs under it)."""

    keys: tuple[PlacedKey, ...]
    labels: tuple[PlacedLabel, ...]
    palette: PlacedKey | None

    def at(self, x: int, width: int) -> PlacedKey | None:
        """The key drawn at column `x` of a footer `width` columns wide, if any."""
        palette_x = self.palette_x(width)
        if self.palette is not None and x >= palette_x:
            return self.palette
        return next((key for key in self.keys if key.x <= x < key.right), None)

    def palette_x(self, width: int) -> int:
        """Where the command palette's key starts (its rule one column before): one column in from
        the right edge."""
        return width - 1 - self.palette.width if self.palette is not None else width


Shown = tuple[Binding, bool, str]  # a binding, whether it applies now, its tooltip


def place_keys(shown: Iterable[Shown], display: Callable[[Binding], str], palette: Shown | None = None) -> FooterLine:
    """The compact footer's line: a key and its description and a space; the keys of a group of
    several actions side by side (with a space between them unless the group is compact), a space,
    then the group's label and a space. Bindings of one action share the first one's entry."""
    by_action: dict[str, Shown] = {}
    for entry in shown:
        by_action.setdefault(entry[0].action, entry)
    keys: list[PlacedKey] = []
    labels: list[PlacedLabel] = []
    x = 0
    for group, members in groupby(by_action.values(), lambda entry: entry[0].group):
        entries = list(members)
        if group is not None and len(entries) > 1:
            x += 1  # the group's own space before its first key
            for binding, enabled, tooltip in entries:
                placed = PlacedKey(binding.key, display(binding), "", enabled, tooltip or binding.description, x)
                keys.append(placed)
                x = placed.right + (0 if group.compact else 1)
            x += 1 if group.compact else 0
            labels.append(PlacedLabel(group.description, x))
            x += len(group.description) + 1
        else:
            for binding, enabled, tooltip in entries:
                placed = PlacedKey(binding.key, display(binding), binding.description, enabled, tooltip, x)
                keys.append(placed)
                x = placed.right + 1
    placed_palette = None
    if palette is not None:
        binding, enabled, tooltip = palette
        placed_palette = PlacedKey(
            binding.key, display(binding), binding.description, enabled, binding.tooltip or tooltip, 0
        )
    return FooterLine(tuple(keys), tuple(labels), placed_palette)


class StudioFooter(Widget, can_focus=False):
    """The screen's keys in one line at the bottom."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {
        "studio-footer--key",
        "studio-footer--description",
        "studio-footer--label",
        "studio-footer--hover",
        "studio-footer--rule",
    }
    DEFAULT_CSS = """
    StudioFooter {
        dock: bottom;
        height: 1;
        width: 1fr;
        color: $footer-foreground;
        background: $footer-background;
        .studio-footer--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .studio-footer--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .studio-footer--label {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .studio-footer--hover {
            color: $footer-key-foreground;
            background: $block-hover-background;
        }
        .studio-footer--rule {
            color: $foreground 20%;
        }
        &:hover {
            pointer: pointer;
        }
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self._line: FooterLine | None = None  # placed when first drawn after a change of keys
        self._hovered: PlacedKey | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen[object]) -> None:
        # Placed again when next drawn: several changes in a row cost one placing and one frame.
        self._line = None
        self.refresh()

    @property
    def line(self) -> FooterLine:
        """The keys as they are placed now."""
        if self._line is None:
            self._line = self._place()
        return self._line

    def shown_keys(self) -> list[PlacedKey]:
        """The keys wholly visible (the command palette's apart), left to right."""
        line, width = self.line, self.size.width
        limit = line.palette_x(width) - 1 if line.palette is not None else width
        return [key for key in line.keys if key.right <= limit]

    def _place(self) -> FooterLine:
        active = self.screen.active_bindings
        app = self.app
        shown = [(binding, enabled, tooltip) for (_, binding, enabled, tooltip) in active.values() if binding.show]
        palette = None
        if app.ENABLE_COMMAND_PALETTE and app.COMMAND_PALETTE_BINDING in active:
            _, binding, enabled, tooltip = active[app.COMMAND_PALETTE_BINDING]
            palette = (binding, enabled, tooltip)
        return place_keys(shown, app.get_key_display, palette)

    def render(self) -> Text:
        line, width = self.line, self.size.width
        key_style = self.get_component_rich_style("studio-footer--key", partial=True)
        description_style = self.get_component_rich_style("studio-footer--description", partial=True)
        hover_style = self.get_component_rich_style("studio-footer--hover", partial=True)
        text = Text(no_wrap=True, overflow="crop", end="")
        parts = [(key.x, key) for key in line.keys] + [(label.x, label) for label in line.labels]
        for x, part in sorted(parts, key=lambda placed: placed[0]):
            text.append(" " * (x - len(text)))
            if isinstance(part, PlacedLabel):
                text.append(part.text, self.get_component_rich_style("studio-footer--label", partial=True))
            else:
                self._append_key(text, part, key_style, description_style, hover_style)
        if line.palette is not None:
            palette_x = line.palette_x(width)
            text.truncate(max(0, palette_x - 1), pad=True)
            text.append(PALETTE_RULE, self.get_component_rich_style("studio-footer--rule", partial=True))
            self._append_key(text, line.palette, key_style, description_style, hover_style)
        text.truncate(width, pad=True)
        return text

    def _append_key(
        self, text: Text, key: PlacedKey, key_style: Style, description_style: Style, hover_style: Style
    ) -> None:
        dim = Style(dim=True) if not key.enabled else Style()
        hovered = hover_style if key == self._hovered else Style()
        text.append(key.display, key_style + dim + hovered)
        if key.description:
            text.append(" " + key.description, description_style + dim + hovered)

    # -- the mouse -------------------------------------------------------------------------------

    def on_mouse_down(self, event: events.MouseDown) -> None:
        key = self.line.at(event.x, self.size.width)
        if key is None:
            return
        event.stop()
        if key.enabled:
            self.app.simulate_key(key.key)
        else:
            self.app.bell()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        key = self.line.at(event.x, self.size.width)
        if key != self._hovered:
            self._hovered = key
            self.tooltip = key.tooltip if key is not None and key.tooltip else None
            self.refresh()

    def on_leave(self, event: events.Leave) -> None:
        if self._hovered is not None:
            self._hovered = None
            self.tooltip = None
            self.refresh()
