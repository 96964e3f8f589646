"""Every key binding of the studio's screens: its id, its default keys, its label, what it does and
where it applies.

The one table of the studio's keys: the TUI builds its Textual `BINDINGS` from it (tui/bindings.py),
and a user keymap is validated and listed from it without loading Textual. Keys are written as
Textual names them (`f1`, `ctrl+s`, `left_square_bracket`, `slash`, `space`); actions as Textual
writes them (`grade(2)`, `switch_mode('bank')`), each naming an `action_…` method of its screen,
widget or app.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FooterGroup:
    """Keys the footer shows as one entry: each key, then one label (`f2 f3 f4 f5 f6 Screen`);
    `compact` without spaces between the keys (`0123 Grade`)."""

    label: str
    compact: bool = False


@dataclass(frozen=True)
class KeyBinding:
    """One binding: `id` is what a keymap names, `keys` the keys it has unless the keymap says otherwise."""

    id: str
    keys: tuple[str, ...]
    label: str  # as the footer, F1 and the command palette name it
    action: str  # what the key runs, as Textual writes an action
    tooltip: str = ""  # what it does, in a line: the footer's tooltip, F1 and the palette
    shown: bool = True  # in the footer; F1 and the palette list every binding
    group: FooterGroup | None = None


@dataclass(frozen=True)
class KeyScope:
    """The bindings of one screen, dialog or widget (the part of their ids before the dot)."""

    name: str
    where: str
    bindings: tuple[KeyBinding, ...]


def _key(
    scope: str,
    name: str,
    keys: str,
    label: str,
    action: str,
    tooltip: str = "",
    *,
    shown: bool = True,
    group: FooterGroup | None = None,
) -> KeyBinding:
    return KeyBinding(f"{scope}.{name}", tuple(keys.split(",")), label, action, tooltip, shown, group)


# The first five screens' keys share one footer entry ("f2 f3 f4 f5 f6 Screen"): with their names
# spelled out, a screen with its own keys ran out of 120 columns before "q Quit".
SCREENS = FooterGroup("Screen")
# One footer entry stands for the four grade keys: each key shown (as the keymap has it), one label.
GRADES = FooterGroup("Grade", compact=True)


def _grades(scope: str, tooltip: str) -> tuple[KeyBinding, ...]:
    """The keys 0–3, each giving its grade (`tooltip` with {grade})."""
    return tuple(
        _key(scope, f"grade{g}", str(g), f"Grade {g}", f"grade({g})", tooltip.format(grade=g), group=GRADES)
        for g in range(4)
    )


def _screen(name: str, key: str, label: str, tooltip: str) -> KeyBinding:
    return _key("app", name, key, label, f"switch_mode('{name}')", tooltip, group=SCREENS)


def _tab(name: str, key: str, label: str) -> KeyBinding:
    return _key("overview", name, key, label, f"show_tab('{name}')", shown=False)


SCOPES: tuple[KeyScope, ...] = (
    KeyScope(
        "app",
        "every screen",
        (
            _key("app", "help", "f1", "Help", "context_help", "Help for this screen"),
            _screen("overview", "f2", "Overview", "What the project holds"),
            _screen("leaderboard", "f3", "Leaderboard", "Runs under two label sets, rank correlation"),
            _screen("review", "f4", "Review", "Step through disagreements"),
            _screen("bank", "f5", "Bank", "Edit test banks, re-grade"),
            _screen("judges", "f6", "Judges", "Run and watch LLM judges"),
            # Off the footer, whose screen keys already fill Review's 120 columns; F1 and the palette list it.
            _key(
                "app",
                "answers",
                "f7",
                "Answers",
                "switch_mode('answers')",
                "Keep or override the verdicts on generated answers",
                shown=False,
                group=SCREENS,
            ),
            _key("app", "quit", "q", "Quit", "quit", "Leave the studio (nothing to save)"),
        ),
    ),
    KeyScope(
        "overview",
        "Overview",
        (
            _key("overview", "refresh", "r", "Refresh", "refresh_overview", "Read the project file again"),
            _tab("label_sets", "1", "Label sets"),
            _tab("runs", "2", "Runs"),
            _tab("topics", "3", "Topics"),
            _tab("banks", "4", "Banks"),
            _tab("responses", "5", "Answers"),
            _tab("judges", "6", "Judge runs"),
            _tab("leaderboards", "7", "Leaderboards"),
        ),
    ),
    KeyScope(
        "leaderboard",
        "Leaderboard",
        (
            _key("leaderboard", "recompute", "r", "Recompute", "recompute", "Read the labels again and recompute"),
            _key(
                "leaderboard",
                "estimate",
                "e",
                "Estimate",
                "toggle_estimate",
                "The leaderboard full human judging would give, from the gold sample",
            ),
            _key(
                "leaderboard", "calibration", "c", "Calibration", "calibration", "The audited set's calibration curve"
            ),
            _key(
                "leaderboard",
                "significance",
                "s",
                "Significance",
                "significance",
                "Which run differences both label sets call significant",
            ),
        ),
    ),
    KeyScope(
        "significance",
        "Significance",
        (
            _key("significance", "close", "escape", "Back", "close", "Back to the leaderboard"),
            _key("significance", "test", "t", "Test", "next_test", "The next significance test"),
            _key("significance", "correction", "c", "Correction", "next_correction", "The next correction"),
        ),
    ),
    KeyScope(
        "review",
        "Review",
        (
            *_grades("review", "Set grade {grade} in the audited label set and go on"),
            _key("review", "accept", "a", "Accept", "accept", "Keep the audited (LLM) label and go on"),
            _key(
                "review",
                "reference",
                "h",
                "Keep human",
                "keep_reference",
                "Give the audited set the reference grade and go on",
            ),
            _key("review", "skip", "s", "Skip", "skip", "Decide later (skipped pairs come last)"),
            _key("review", "flag", "f", "Flag", "flag", "Mark the pair for a second look"),
            _key("review", "note", "n", "Note", "note", "Write a note on the pair"),
            _key("review", "undo", "u", "Undo", "undo", "Revert the last decision and show its pair"),
            _key("review", "previous", "left_square_bracket", "Previous", "go(-1)", "Previous pair", shown=False),
            _key("review", "next", "right_square_bracket", "Next", "go(1)", "Next pair", shown=False),
            _key(
                "review",
                "filter",
                "slash",
                "Filter",
                "filter",
                "Narrow the queue: topic Q, run R, or a grade pair such as 3 0",
            ),
            # Off the footer, which is full; F1 and the palette list them.
            _key(
                "review",
                "back",
                "escape",
                "Back",
                "back",
                "Back to the screen that sent you here (the significance matrix)",
                shown=False,
            ),
            _key(
                "review",
                "audit",
                "b",
                "Blind audit",
                "blind_audit",
                "Grade an audit's sample in its random order, the LLM's grade hidden",
                shown=False,
            ),
        ),
    ),
    KeyScope(
        "history",
        "Review's list of past decisions",
        (
            _key("history", "up", "up", "Newer", "move(-1)", "The decision above", shown=False),
            _key("history", "down", "down", "Older", "move(1)", "The decision below", shown=False),
            _key("history", "choose", "enter", "Decide again", "choose", "Show its pair again", shown=False),
        ),
    ),
    KeyScope(
        "bank",
        "Bank",
        (
            _key("bank", "add", "a", "Add", "add", "Add an item to this topic"),
            _key("bank", "edit", "e", "Edit", "edit", "New wording of the item (its cells become stale)"),
            _key("bank", "delete", "d", "Delete", "delete", "Delete the item"),
            _key("bank", "weight", "v", "Vital/okay", "weight", "Switch the nugget between vital and okay"),
            _key("bank", "restore", "u", "Undo delete", "restore", "Bring back the item deleted last", shown=False),
            _key("bank", "mark", "space", "Mark", "mark", "Mark the item for merging"),
            _key("bank", "merge", "m", "Merge", "merge", "Merge the marked items into one"),
            _key(
                "bank",
                "regrade",
                "g",
                "Re-grade stale",
                "regrade",
                "Grade the stale cells again with the judge that graded the bank",
            ),
            _key("bank", "reload", "r", "Reload", "reload", "Read the bank again"),
        ),
    ),
    KeyScope(
        "judges",
        "Judges",
        (
            _key("judges", "start", "ctrl+s", "Start / resume", "start", "Run the judge (cached calls are free)"),
            _key("judges", "cancel", "ctrl+x", "Cancel", "cancel", "Stop; finished judgments stay saved"),
            _key("judges", "failures", "ctrl+f", "Failures", "failures", "List the newest run's failures"),
        ),
    ),
    KeyScope(
        "audit",
        "Blind audit",
        (
            *_grades("audit", "Gold grade {grade} for this pair, then the next"),
            _key("audit", "skip", "s", "Skip", "skip", "Grade this pair later"),
            _key("audit", "undo", "u", "Undo", "undo", "Revert the audit's last grade and show its pair"),
            _key("audit", "leave", "escape", "Back", "leave", "Back to Review"),
        ),
    ),
    KeyScope(
        "assess",
        "Campaign",
        (
            *_grades("assess", "Grade {grade} for this pair, then the next"),
            _key("assess", "keep", "k", "Keep LLM grade", "keep", "Post-editing: give the pair the LLM's grade shown"),
            _key("assess", "undo", "u", "Undo", "undo", "Take back your last grade and show its pair"),
            # No key leaves a campaign but quitting: it is a closed room (docs/assess.md).
        ),
    ),
    KeyScope(
        "answers",
        "Answers",
        (
            *_grades("answers", "Override the verdict with {grade} (on the set's scale), then the next answer"),
            *(
                _key("answers", f"grade{g}", str(g), f"Grade {g}", f"grade({g})", "Override with a grade", shown=False)
                for g in range(4, 10)
            ),
            _key("answers", "keep", "k", "Keep", "keep", "Keep the verdict as a person's, then the next answer"),
            _key("answers", "undo", "u", "Undo", "undo", "Take back the last check and show its answer"),
            _key("answers", "previous", "left_square_bracket", "Previous", "go(-1)", "Previous answer", shown=False),
            _key("answers", "next", "right_square_bracket", "Next", "go(1)", "Next answer", shown=False),
            _key("answers", "next_set", "m", "Next set", "next_set", "Check the next answers label set's verdicts"),
            _key("answers", "leave", "escape", "Back", "leave", "Back to the Overview, once the checks are saved"),
        ),
    ),
    KeyScope(
        "audit-picker", "the audit picker", (_key("audit-picker", "cancel", "escape", "Cancel", "cancel", "Close"),)
    ),
    KeyScope(
        "dialog",
        "a message dialog",
        (_key("dialog", "close", "escape,enter,q", "Close", "dismiss", "Back to the screen"),),
    ),
    KeyScope(
        "confirm",
        "a question (delete?)",
        (
            _key("confirm", "yes", "y", "Yes", "answer(True)", "Go ahead"),
            _key("confirm", "no", "n,escape", "No", "answer(False)", "Leave it as it is"),
        ),
    ),
    KeyScope(
        "calibration",
        "the calibration curve",
        (_key("calibration", "close", "escape,c,q", "Close", "dismiss", "Back to the leaderboard"),),
    ),
    KeyScope(
        "prompt",
        "a text prompt (note, filter)",
        (_key("prompt", "cancel", "escape", "Cancel", "cancel", "Close without saving"),),
    ),
    KeyScope(
        "help", "F1's help", (_key("help", "close", "escape,f1,q", "Close help", "dismiss", "Back to the screen"),)
    ),
)

BINDINGS: dict[str, KeyBinding] = {binding.id: binding for scope in SCOPES for binding in scope.bindings}
_SCOPE_NAMED: dict[str, KeyScope] = {scope.name: scope for scope in SCOPES}

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
    "Campaign": ("app", "assess"),
    "Answers": ("app", "answers"),
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


def scope_named(name: str) -> KeyScope:
    """The scope of this name (`review`); a KeyError for a name the table lacks."""
    return _SCOPE_NAMED[name]
