"""Every key binding of the studio's screens: its id, its default keys, its label and where it applies.

The one table the TUI's `BINDINGS` are checked against (tests/tui/test_key_bindings_table.py), so a
user keymap can be validated, and listed, without loading Textual. Keys are written as Textual names
them (`f1`, `ctrl+s`, `left_square_bracket`, `slash`, `space`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KeyBinding:
    """One binding: `id` is what a keymap names, `keys` the keys it has unless the keymap says otherwise."""

    id: str
    keys: tuple[str, ...]
    label: str  # as the footer, F1 and the command palette name it


@dataclass(frozen=True)
class KeyScope:
    """The bindings of one screen, dialog or widget (the part of their ids before the dot)."""

    name: str
    where: str
    bindings: tuple[KeyBinding, ...]


def _key(scope: str, name: str, keys: str, label: str) -> KeyBinding:
    return KeyBinding(f"{scope}.{name}", tuple(keys.split(",")), label)


def _grades(scope: str) -> tuple[KeyBinding, ...]:
    return tuple(_key(scope, f"grade{g}", str(g), f"Grade {g}") for g in range(4))


SCOPES: tuple[KeyScope, ...] = (
    KeyScope(
        "app",
        "every screen",
        (
            _key("app", "help", "f1", "Help"),
            _key("app", "overview", "f2", "Overview"),
            _key("app", "leaderboard", "f3", "Leaderboard"),
            _key("app", "review", "f4", "Review"),
            _key("app", "bank", "f5", "Bank"),
            _key("app", "judges", "f6", "Judges"),
            _key("app", "quit", "q", "Quit"),
        ),
    ),
    KeyScope(
        "overview",
        "Overview",
        (
            _key("overview", "refresh", "r", "Refresh"),
            _key("overview", "label_sets", "1", "Label sets"),
            _key("overview", "runs", "2", "Runs"),
            _key("overview", "topics", "3", "Topics"),
            _key("overview", "banks", "4", "Banks"),
            _key("overview", "responses", "5", "Answers"),
            _key("overview", "judges", "6", "Judge runs"),
            _key("overview", "leaderboards", "7", "Leaderboards"),
        ),
    ),
    KeyScope(
        "leaderboard",
        "Leaderboard",
        (
            _key("leaderboard", "recompute", "r", "Recompute"),
            _key("leaderboard", "estimate", "e", "Estimate"),
            _key("leaderboard", "calibration", "c", "Calibration"),
            _key("leaderboard", "significance", "s", "Significance"),
        ),
    ),
    KeyScope(
        "significance",
        "Significance",
        (
            _key("significance", "close", "escape", "Back"),
            _key("significance", "test", "t", "Test"),
            _key("significance", "correction", "c", "Correction"),
        ),
    ),
    KeyScope(
        "review",
        "Review",
        (
            *_grades("review"),
            _key("review", "accept", "a", "Accept"),
            _key("review", "reference", "h", "Keep human"),
            _key("review", "skip", "s", "Skip"),
            _key("review", "flag", "f", "Flag"),
            _key("review", "note", "n", "Note"),
            _key("review", "undo", "u", "Undo"),
            _key("review", "previous", "left_square_bracket", "Previous"),
            _key("review", "next", "right_square_bracket", "Next"),
            _key("review", "filter", "slash", "Filter"),
            _key("review", "back", "escape", "Back"),
            _key("review", "audit", "b", "Blind audit"),
        ),
    ),
    KeyScope(
        "history",
        "Review's list of past decisions",
        (
            _key("history", "up", "up", "Newer"),
            _key("history", "down", "down", "Older"),
            _key("history", "choose", "enter", "Decide again"),
        ),
    ),
    KeyScope(
        "bank",
        "Bank",
        (
            _key("bank", "add", "a", "Add"),
            _key("bank", "edit", "e", "Edit"),
            _key("bank", "delete", "d", "Delete"),
            _key("bank", "weight", "v", "Vital/okay"),
            _key("bank", "restore", "u", "Undo delete"),
            _key("bank", "mark", "space", "Mark"),
            _key("bank", "merge", "m", "Merge"),
            _key("bank", "regrade", "g", "Re-grade stale"),
            _key("bank", "reload", "r", "Reload"),
        ),
    ),
    KeyScope(
        "judges",
        "Judges",
        (
            _key("judges", "start", "ctrl+s", "Start / resume"),
            _key("judges", "cancel", "ctrl+x", "Cancel"),
            _key("judges", "failures", "ctrl+f", "Failures"),
        ),
    ),
    KeyScope(
        "audit",
        "Blind audit",
        (
            *_grades("audit"),
            _key("audit", "skip", "s", "Skip"),
            _key("audit", "undo", "u", "Undo"),
            _key("audit", "leave", "escape", "Back"),
        ),
    ),
    KeyScope("audit-picker", "the audit picker", (_key("audit-picker", "cancel", "escape", "Cancel"),)),
    KeyScope("dialog", "a message dialog", (_key("dialog", "close", "escape,enter,q", "Close"),)),
    KeyScope(
        "confirm",
        "a question (delete?)",
        (_key("confirm", "yes", "y", "Yes"), _key("confirm", "no", "n,escape", "No")),
    ),
    KeyScope("calibration", "the calibration curve", (_key("calibration", "close", "escape,c,q", "Close"),)),
    KeyScope("prompt", "a text prompt (note, filter)", (_key("prompt", "cancel", "escape", "Cancel"),)),
    KeyScope("help", "F1's help", (_key("help", "close", "escape,f1,q", "Close help"),)),
)

BINDINGS: dict[str, KeyBinding] = {binding.id: binding for scope in SCOPES for binding in scope.bindings}

# The scopes whose keys are live at the same time, by screen: a screen's own, its widgets' and the
# app's. A dialog (a modal screen) hides every key beneath it, so its keys are live alone: that
# F1 and q close the help instead of opening it or quitting is meant.
LIVE_TOGETHER: dict[str, tuple[str, ...]] = {
    "Overview": ("app", "overview"),
    "Leaderboard": ("app", "leaderboard"),
    "Significance": ("app", "significance"),
    "Review": ("app", "review", "history"),
    "Bank": ("app", "bank"),
    "Judges": ("app", "judges"),
    "Blind audit": ("app", "audit"),
    "the audit picker": ("audit-picker",),
    "a message dialog": ("dialog",),
    "a question (delete?)": ("confirm",),
    "the calibration curve": ("calibration",),
    "a text prompt": ("prompt",),
    "F1's help": ("help",),
}

# Keys Textual binds on every screen: a binding given one of them would never see it, or take it
# from the command palette, focus moving or quitting.
RESERVED_KEYS: dict[str, str] = {
    "ctrl+p": "opens the command palette",
    "ctrl+q": "quits",
    "ctrl+c": "copies the selected text",
    "tab": "moves the focus",
    "shift+tab": "moves the focus back",
}


def scope_of(binding_id: str) -> str:
    """`review.grade2` -> `review`."""
    return binding_id.split(".", 1)[0]
