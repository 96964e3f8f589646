"""The footer drawn as one line: where each key is placed (the compact footer's spacing, groups
with one label, the command palette's key at the right edge), that it follows the screen's keys as
they change, and that the mouse works on it as on Textual's footer: a click presses the key (a key
that does not apply now rings the bell), hovering one shows what it does."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.app import App, ComposeResult
from textual.binding import Binding

from studio.tui.widgets.footer import StudioFooter, place_keys

GRADES = Binding.Group("Grade", compact=True)
SCREENS = Binding.Group("Screen")


def display(binding: Binding) -> str:
    return {"ctrl+p": "^p", "slash": "/"}.get(binding.key, binding.key)


def shown(*bindings: Binding, enabled: bool = True) -> list[tuple[Binding, bool, str]]:
    return [(binding, enabled, binding.tooltip) for binding in bindings]


def test_keys_groups_and_labels_take_the_compact_footers_places() -> None:
    line = place_keys(
        shown(
            *(Binding(str(g), f"grade({g})", f"Grade {g}", tooltip=f"grade {g}", group=GRADES) for g in range(4)),
            Binding("a", "accept", "Accept", tooltip="keep it"),
            Binding("slash", "filter", "Filter"),
            Binding("f2", "switch_mode('overview')", "Overview", group=SCREENS),
            Binding("f3", "switch_mode('leaderboard')", "Leaderboard", group=SCREENS),
            Binding("q", "quit", "Quit"),
        ),
        display,
        palette=(Binding("ctrl+p", "command_palette", "palette", tooltip="Open the palette"), True, ""),
    )
    placed = {key.key: (key.x, key.display, key.description) for key in line.keys}
    # " 0123 Grade a Accept / Filter  f2 f3 Screen q Quit"
    assert placed == {
        "0": (1, "0", ""),
        "1": (2, "1", ""),
        "2": (3, "2", ""),
        "3": (4, "3", ""),
        "a": (12, "a", "Accept"),
        "slash": (21, "/", "Filter"),
        "f2": (31, "f2", ""),
        "f3": (34, "f3", ""),
        "q": (44, "q", "Quit"),
    }
    assert [(label.text, label.x) for label in line.labels] == [("Grade", 6), ("Screen", 37)]
    assert [key.tooltip for key in line.keys[:2]] == ["grade 0", "grade 1"]  # a grouped key's own words
    assert line.palette is not None and line.palette.tooltip == "Open the palette"
    # At 60 columns the palette's key ("^p palette", ten) ends a column before the edge, its rule before it.
    assert line.palette_x(60) == 49
    assert line.at(50, 60) == line.palette
    under = line.at(13, 60)
    assert under is not None and under.key == "a"
    assert line.at(11, 60) is None  # between "Grade" and "a"


def test_keys_of_one_action_share_the_first_ones_entry() -> None:
    line = place_keys(shown(Binding("enter", "decide", "Decide"), Binding("space", "decide", "Decide")), display)
    assert [key.key for key in line.keys] == ["enter"]


class Keys(App[None]):
    """A screen with three keys: `a` applies, `b` is shown but does not apply now (dim, the bell
    on a click), `c` comes and goes."""

    BINDINGS = [
        Binding("a", "press('a')", "Alpha", tooltip="Press alpha"),
        Binding("b", "press('b')", "Beta", tooltip="Press beta"),
        Binding("c", "press('c')", "Gamma"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.pressed: list[str] = []
        self.bells = 0
        self.gamma = True

    def compose(self) -> ComposeResult:
        yield StudioFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "press" and parameters == ("b",):
            return None
        if action == "press" and parameters == ("c",):
            return self.gamma
        return True

    def action_press(self, key: str) -> None:
        self.pressed.append(key)

    def bell(self) -> None:
        self.bells += 1


def play(steps: Any) -> None:
    async def main() -> None:
        app = Keys()
        async with app.run_test(size=(60, 5)) as pilot:
            await pilot.pause()
            await steps(app, pilot, app.query_one(StudioFooter))

    asyncio.run(main())


def test_a_click_presses_the_key_and_a_key_that_does_not_apply_rings_the_bell() -> None:
    async def steps(app: Keys, pilot: Any, footer: StudioFooter) -> None:
        keys = {key.key: key for key in footer.line.keys}
        assert not keys["b"].enabled and keys["a"].enabled
        await pilot.click(StudioFooter, offset=(keys["a"].x + 2, 0))  # on its description
        await pilot.click(StudioFooter, offset=(keys["b"].x, 0))
        await pilot.pause()
        assert app.pressed == ["a"]
        assert app.bells == 1

    play(steps)


def test_the_line_reads_as_the_keys_and_follows_them_when_they_change() -> None:
    async def steps(app: Keys, pilot: Any, footer: StudioFooter) -> None:
        assert footer.render().plain.startswith("a Alpha b Beta c Gamma ")
        app.gamma = False
        app.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        assert [key.key for key in footer.line.keys] == ["a", "b"]
        assert footer.render().plain.startswith("a Alpha b Beta ")
        assert "Gamma" not in footer.render().plain

    play(steps)


def test_hovering_a_key_shows_what_it_does() -> None:
    async def steps(app: Keys, pilot: Any, footer: StudioFooter) -> None:
        keys = {key.key: key for key in footer.line.keys}
        await pilot.hover(StudioFooter, offset=(keys["b"].x + 1, 0))
        await pilot.pause()
        assert footer.tooltip == "Press beta"
        await pilot.hover(StudioFooter, offset=(keys["c"].right + 3, 0))  # past the last key
        await pilot.pause()
        assert footer.tooltip is None

    play(steps)
