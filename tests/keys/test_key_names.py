"""Key names checked without Textual agree with Textual: characters are named as it names them, and a
key the check takes is one a Textual key event can carry."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from textual.keys import Keys, _character_to_key, _normalize_key_list

from studio.domain.key_names import NAMED_KEYS, KeyNameError, character_key, normalize_key


@settings(max_examples=examples(500))
@given(st.characters(exclude_categories=["Cs"]))
def test_a_character_is_named_as_textual_names_it(character: str) -> None:
    assert character_key(character) == _character_to_key(character)


@settings(max_examples=examples(300))
@given(st.characters(min_codepoint=33, max_codepoint=0x2FFF).filter(lambda c: c.isprintable() and c != ","))
def test_a_single_character_normalizes_as_textuals_keymap_does(character: str) -> None:
    # (a comma separates keys in a Textual keymap: the key itself is written `comma`)
    assert normalize_key(character) == _normalize_key_list(character)


def test_named_keys_are_textuals() -> None:
    textual = {key.value for key in Keys if "+" not in key.value and not key.value.startswith("<")}
    assert not NAMED_KEYS - textual


@pytest.mark.parametrize(
    ("written", "name"),
    [
        ("x", "x"),
        ("X", "X"),
        ("?", "question_mark"),
        ("[", "left_square_bracket"),
        ("slash", "slash"),
        ("ctrl+[", "ctrl+left_square_bracket"),
        ("ctrl+shift+left", "ctrl+shift+left"),
        ("f12", "f12"),
        ("+", "plus"),
        ("ctrl++", "ctrl+plus"),
        ("shift+space", "shift+space"),
        ("pound_sign", "pound_sign"),
    ],
)
def test_keys_textual_sends_are_taken_in_its_names(written: str, name: str) -> None:
    assert normalize_key(written) == name


@pytest.mark.parametrize(
    ("written", "reason"),
    [
        ("", "not a key name"),
        (" x", "not a key name"),
        ("F1", "f1, in lower case"),
        ("Escape", "escape, in lower case"),
        ("zz", "not a key Textual knows"),
        ("control+x", "'control' is not a modifier"),
        ("shift+ctrl+x", "in the order alt+ctrl"),
        ("ctrl+ctrl+x", "each modifier once"),
        ("ctrl+X", "lower case"),
        ("shift+a", "a shifted character is a key of its own"),
        ("ctrl+", "not a key Textual knows"),
        ("\x01", "control character"),
    ],
)
def test_keys_textual_never_sends_are_refused_saying_why(written: str, reason: str) -> None:
    with pytest.raises(KeyNameError, match=reason.replace("+", r"\+")):
        normalize_key(written)
