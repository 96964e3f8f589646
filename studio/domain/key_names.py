"""Key names as Textual writes them in its key events, checked and normalized without Textual.

A key is `[modifier+…]base`. Textual sorts the modifiers of a key event alphabetically, so a
binding written in another order (`shift+ctrl+x`) would never fire; a printable character is named
by its Unicode name in lower case (`?` is `question_mark`, `[` `left_square_bracket`), as
`textual.keys._character_to_key` does (tests/tui/test_key_names.py checks the two agree).
"""

from __future__ import annotations

import unicodedata

MODIFIERS = ("alt", "ctrl", "hyper", "meta", "shift", "super")  # the order of a key event's
NAMED_KEYS = frozenset(
    {
        "escape",
        "enter",
        "tab",
        "space",
        "backspace",
        "insert",
        "delete",
        "home",
        "end",
        "pageup",
        "pagedown",
        "up",
        "down",
        "left",
        "right",
        *(f"f{n}" for n in range(1, 25)),
    }
)
# Textual's friendlier names for some characters (textual.keys.KEY_NAME_REPLACEMENTS).
CHARACTER_NAME_REPLACEMENTS = {
    "solidus": "slash",
    "reverse_solidus": "backslash",
    "commercial_at": "at",
    "hyphen_minus": "minus",
    "plus_sign": "plus",
    "low_line": "underscore",
}
ASCII_CHARACTER_NAMES = {"\t": "tab"}
KNOWN_KEYS = "a character, a character's name such as slash or question_mark, f1–f24, escape, enter, up, pageup, …"


class KeyNameError(ValueError):
    """A key Textual would not recognise; the message says why."""


def character_key(character: str) -> str:
    """The key name of one character: itself when alphanumeric, else its Unicode name in lower case."""
    if character.isalnum():
        return character
    try:
        name = unicodedata.name(character).lower().replace("-", "_").replace(" ", "_")
    except ValueError:
        name = ASCII_CHARACTER_NAMES.get(character, character)
    return CHARACTER_NAME_REPLACEMENTS.get(name, name)


# The names of the printable ASCII characters that are not letters or digits (`slash`, `space`, …).
CHARACTER_NAMES = frozenset(character_key(chr(code)) for code in range(32, 127) if not chr(code).isalnum())


def _is_character_name(name: str) -> bool:
    """Whether `name` is what `character_key` makes of some character (`pound_sign`, `full_stop`)."""
    if name in CHARACTER_NAMES:
        return True
    original = {v: k for k, v in CHARACTER_NAME_REPLACEMENTS.items()}.get(name, name)
    try:
        character = unicodedata.lookup(original.replace("_", " "))
    except KeyError:
        return False
    return character.isprintable() and character_key(character) == name


def _is_key_name(name: str) -> bool:
    return name in NAMED_KEYS or _is_character_name(name)


def normalize_key(text: str) -> str:
    """`text` as Textual names the key (`ctrl+[` -> `ctrl+left_square_bracket`, `?` -> `question_mark`);
    KeyNameError when Textual would never send it."""
    if text != text.strip() or not text:
        raise KeyNameError(f"{text!r} is not a key name (no spaces around a key; a space is `space`)")
    if text == "+":
        modifiers, base = [], "+"
    elif text.endswith("++"):  # ctrl++: the plus key with a modifier
        modifiers, base = text[:-2].split("+"), "+"
    else:
        *modifiers, base = text.split("+")
    for modifier in modifiers:
        if modifier not in MODIFIERS:
            raise KeyNameError(f"{text!r}: {modifier!r} is not a modifier (they are {', '.join(MODIFIERS)})")
    if len(set(modifiers)) != len(modifiers) or modifiers != sorted(modifiers):
        raise KeyNameError(
            f"{text!r}: write each modifier once, in the order {'+'.join(MODIFIERS)} (as Textual names the key)"
        )
    if len(base) == 1:
        if not base.isprintable():
            raise KeyNameError(f"{text!r}: a control character is not a key name")
        if modifiers and base.isalpha() and base != base.lower():
            raise KeyNameError(
                f"{text!r}: with a modifier, write the letter in lower case ({'+'.join(modifiers)}+shift)"
            )
        if modifiers == ["shift"] and base != " ":
            raise KeyNameError(f"{text!r}: a shifted character is a key of its own (write the character)")
        base = character_key(base)
    elif not _is_key_name(base):
        what = f"{text!r}: {base!r}" if modifiers else repr(text)
        hint = f"{base.lower()}, in lower case" if _is_key_name(base.lower()) else KNOWN_KEYS
        raise KeyNameError(f"{what} is not a key Textual knows ({hint})")
    return "+".join([*modifiers, base])
