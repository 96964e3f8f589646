"""A person's keymap in the running studio: a remapped key grades in Review (the decision lands in the
project file, read back through the facade), the key it replaced does nothing, and F1's help and
the footer show the new key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Markdown
from tui_helpers import Messages, drive, settle, until

from studio.domain.keymap import Keymap, parse_keymap
from studio.tui.app import StudioApp
from studio.tui.screens.review import ReviewScreen
from studio.tui.widgets.footer import StudioFooter
from studio.tui.widgets.help import HelpScreen

LLM = "umbrela-smol"
GRADE_TWO_ON_X = Keymap(Path("keymap.toml"), parse_keymap('review.grade2 = "x"\n', "keymap.toml"))


def on_review(app: StudioApp) -> bool:
    return isinstance(app.screen, ReviewScreen) and app.screen.loaded


def position(app: StudioApp) -> int:
    screen = app.screen
    assert isinstance(screen, ReviewScreen) and screen.session is not None
    return screen.session.position


def test_a_remapped_key_grades_and_the_key_it_replaced_does_nothing(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        project = app.state.project
        with app.state.engine_lock:
            first = project.disagreements("human", LLM, limit=1)[0]
            before = project.label_history(LLM)
        assert first["grade"] != 2

        await pilot.press("2")  # no longer a grade key: nothing written, the pair stays
        await settle(pilot)
        assert position(app) == 0
        with app.state.engine_lock:
            assert project.label_history(LLM) == before

        await pilot.press("x")
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await until(pilot, lambda: not screen.pending)
        await settle(pilot)
        assert position(app) == 1
        with app.state.engine_lock:
            newest = project.label_history(LLM)[0]
        assert (newest["qid"], newest["docid"], newest["grade"], newest["origin"]) == (
            first["qid"],
            first["docid"],
            2.0,
            "person",
        )

    drive(sample, steps, screen="review", ready=on_review, keymap=GRADE_TWO_ON_X)


def help_rows(app: StudioApp) -> list[str]:
    source = app.screen.query_one(Markdown).source
    return [line for line in source.splitlines() if line.startswith("| `")]


def test_f1_and_the_footer_show_the_remapped_key(sample: Path) -> None:
    keymap = Keymap(Path("k.toml"), parse_keymap('review.grade2 = "x"\napp.help = "f9"\n', "k.toml"))

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        footer_keys = [key.display for key in app.screen.query_one(StudioFooter).line.keys]
        assert footer_keys[:4] == ["0", "1", "x", "3"]
        assert "f9" in footer_keys and "f1" not in footer_keys

        await pilot.press("f1")  # the old help key
        await settle(pilot)
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("f9")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        rows = help_rows(app)
        assert rows[:4] == ["| `0` | Grade 0 |", "| `1` | Grade 1 |", "| `x` | Grade 2 |", "| `3` | Grade 3 |"]
        assert "| `f9` | Help |" in rows
        assert not [row for row in rows if row.startswith("| `2` ") or row.startswith("| `f1` ")]

    drive(sample, steps, screen="review", ready=on_review, keymap=keymap)


def test_without_a_keymap_the_footer_shows_the_default_grade_keys(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        footer_keys = [key.display for key in app.screen.query_one(StudioFooter).line.keys]
        assert footer_keys[:4] == ["0", "1", "2", "3"]

    drive(sample, steps, screen="review", ready=on_review)
