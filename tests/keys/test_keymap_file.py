"""The keymap file: where it is looked for, what it may say, and every way it is refused (whole, with
the file, the line and the reason)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from studio.domain.errors import InputError
from studio.domain.key_bindings import BINDINGS, LIVE_TOGETHER, scope_of
from studio.domain.keymap import NO_KEYMAP, Keymap, keymap_path, load_keymap, parse_keymap
from studio.domain.settings import Settings

FILE = "keymap.toml"


def refusal(text: str) -> str:
    with pytest.raises(InputError) as caught:
        parse_keymap(text, FILE)
    return str(caught.value)


# -- where it is ------------------------------------------------------------------------------------


def test_studio_keymap_names_the_file_before_the_config_folder(tmp_path: Path) -> None:
    env = {"STUDIO_KEYMAP": str(tmp_path / "mine.toml"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    assert keymap_path(Settings.from_environ(env)) == tmp_path / "mine.toml"


def test_the_config_folder_is_xdg_config_home_else_dot_config(tmp_path: Path) -> None:
    assert keymap_path(Settings.from_environ({"XDG_CONFIG_HOME": str(tmp_path)})) == tmp_path / "studio" / "keymap.toml"
    assert keymap_path(Settings.from_environ({})) == Path.home() / ".config" / "studio" / "keymap.toml"


def test_no_file_in_the_config_folder_is_no_keymap(tmp_path: Path) -> None:
    assert load_keymap(Settings.from_environ({"XDG_CONFIG_HOME": str(tmp_path)})) is NO_KEYMAP
    assert NO_KEYMAP.for_textual() == {}


def test_a_file_studio_keymap_names_must_exist(tmp_path: Path) -> None:
    missing = tmp_path / "gone.toml"
    with pytest.raises(InputError, match=f"^{missing}: no such keymap file"):
        load_keymap(Settings.from_environ({"STUDIO_KEYMAP": str(missing)}))


def test_the_file_found_is_read_and_named(tmp_path: Path) -> None:
    (tmp_path / "studio").mkdir()
    path = tmp_path / "studio" / "keymap.toml"
    path.write_text('"review.grade2" = "x"\n', encoding="utf-8")
    keymap = load_keymap(Settings.from_environ({"XDG_CONFIG_HOME": str(tmp_path)}))
    assert keymap.file == path and dict(keymap.keys) == {"review.grade2": ("x",)}


def test_a_file_not_utf8_or_unreadable_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "k.toml"
    path.write_bytes(b'review.accept = "\xff"\n')
    with pytest.raises(InputError, match=f"^{path}: not UTF-8"):
        load_keymap(Settings.from_environ({"STUDIO_KEYMAP": str(path)}))
    with pytest.raises(InputError, match=f"^{tmp_path}: cannot be read"):
        load_keymap(Settings.from_environ({"STUDIO_KEYMAP": str(tmp_path)}))  # a folder


# -- what it may say ----------------------------------------------------------------------------------


def test_quoted_dotted_and_table_ids_are_the_same_binding() -> None:
    quoted = parse_keymap('"review.accept" = "y"\n', FILE)
    dotted = parse_keymap('review.accept = "y"\n', FILE)
    table = parse_keymap('[review]\naccept = "y"\n', FILE)
    assert quoted == dotted == table == {"review.accept": ("y",)}


def test_several_keys_as_a_list_or_with_commas_in_textuals_names() -> None:
    assert parse_keymap('review.accept = ["y", "ctrl+["]\n', FILE) == {
        "review.accept": ("y", "ctrl+left_square_bracket")
    }
    assert parse_keymap('review.note = "?,ctrl+n"\n', FILE) == {"review.note": ("question_mark", "ctrl+n")}


def test_swapping_two_keys_is_no_clash() -> None:
    assert parse_keymap('review.accept = "h"\nreview.reference = "a"\n', FILE) == {
        "review.accept": ("h",),
        "review.reference": ("a",),
    }


def test_a_dialogs_keys_may_be_the_screens_it_covers() -> None:
    # A modal screen hides the keys beneath it: its f2 is not the app's.
    assert parse_keymap('help.close = ["escape", "f2"]\n', FILE) == {"help.close": ("escape", "f2")}


def test_the_effective_keys_say_which_come_from_the_file() -> None:
    keymap = Keymap(Path(FILE), parse_keymap('review.grade2 = "x"\n', FILE))
    effective = {row.id: row for row in keymap.effective()}
    assert set(effective) == set(BINDINGS)
    assert effective["review.grade2"].keys == ("x",) and effective["review.grade2"].from_file
    assert effective["review.grade2"].default == ("2",)
    assert effective["review.grade1"].keys == ("1",) and not effective["review.grade1"].from_file
    assert keymap.for_textual()["review.grade2"] == "x" and keymap.for_textual()["dialog.close"] == "escape,enter,q"


# -- refusals -----------------------------------------------------------------------------------------


def test_not_toml_names_the_line() -> None:
    assert refusal('review.accept = "y"\n\nreview.skip = "z\n').startswith(f"{FILE}:3: not TOML: ")


def test_an_unknown_id_names_its_line_and_the_nearest_id() -> None:
    message = refusal('app.quit = "y"\n[review]\nacept = "k"\n')
    assert message == f"{FILE}:3: review.acept: the studio has no binding of that id (did you mean review.accept?)"


def test_a_key_textual_does_not_know_is_refused() -> None:
    assert (
        refusal('review.accept = "F1"\n')
        == f"{FILE}:1: review.accept: 'F1' is not a key Textual knows (f1, in lower case)"
    )
    assert "'zz' is not a key Textual knows" in refusal('\nreview.accept = ["y", "zz"]\n')
    assert refusal('\nreview.accept = ["y", "zz"]\n').startswith(f"{FILE}:2: ")


@pytest.mark.parametrize("value", ["3", "[]", "[1]", '{ key = "x" }', '""'])
def test_a_value_that_is_no_key_is_refused(value: str) -> None:
    assert refusal(f"review.accept = {value}\n").startswith(f"{FILE}:1: review.accept")


def test_a_key_another_binding_of_the_screen_has_is_refused() -> None:
    message = refusal('\n\nreview.accept = "s"\n')
    assert message == f"{FILE}:3: review.accept: s is also review.skip's key on Review; give one of them another key"
    assert "app.overview's key on Review" in refusal('review.accept = "f2"\n')
    assert "history.up's key on Review" in refusal('review.accept = "up"\n')  # a widget of the screen


def test_two_bindings_the_file_gives_one_key_are_refused() -> None:
    assert "on Review" in refusal('review.skip = "x"\napp.quit = "x"\n')


def test_textuals_own_keys_are_refused() -> None:
    assert "ctrl+p is Textual's own (ctrl+p opens the command palette)" in refusal('review.accept = "ctrl+p"\n')
    assert "tab" in refusal('review.accept = "ctrl+i"\n')  # tab, as the terminal sends it


def test_a_key_twice_in_one_binding_is_refused() -> None:
    assert "question_mark is given twice" in refusal('review.note = ["?", "question_mark"]\n')


# -- properties ---------------------------------------------------------------------------------------

# f7 is the Answers screen's.
SPARE_KEYS = [f"ctrl+{letter}" for letter in "bdeghjklnotvwyz"] + [f"f{n}" for n in range(8, 14)]


@settings(max_examples=examples(200), deadline=None)
@given(st.dictionaries(st.sampled_from(sorted(BINDINGS)), st.sampled_from(SPARE_KEYS), max_size=6))
def test_a_keymap_is_taken_exactly_when_no_screen_has_a_key_twice(assigned: dict[str, str]) -> None:
    text = "".join(f'"{binding_id}" = "{key}"\n' for binding_id, key in assigned.items())
    clash = any(
        len([b for b in assigned if scope_of(b) in scopes and assigned[b] == key]) > 1
        for scopes in LIVE_TOGETHER.values()
        for key in set(assigned.values())
    )
    if clash:
        with pytest.raises(InputError, match="give one of them another key"):
            parse_keymap(text, FILE)
    else:
        assert parse_keymap(text, FILE) == {binding_id: (key,) for binding_id, key in assigned.items()}


@settings(max_examples=examples(200), deadline=None)
@given(st.text(max_size=80))
def test_any_text_is_a_keymap_or_one_line_naming_the_file(text: str) -> None:
    try:
        keys = parse_keymap(text, FILE)
    except InputError as error:
        assert str(error).startswith(f"{FILE}") and "\n" not in str(error)
    else:
        assert set(keys) <= set(BINDINGS)
