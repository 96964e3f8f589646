"""The bundled prompt templates reproduce the published prompts character for character (checked
against the pins in tests/published/prompts, and the pins against PROMPTS.md when it is here),
their hashes identify that text, and rendering fills only named placeholders."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from judges.prompt_pins import (
    BUNDLED,
    PINS_FILE,
    PROMPTS_MD,
    STUDIO_WRITTEN,
    TEMPLATE_PARTS,
    Verbatim,
    code_blocks,
    load_pins,
    pin_of,
    published_texts,
    template_problems,
    verbatim_problems,
)

from studio.domain.errors import InputError, UsageError
from studio.judges.prompts import PromptTemplate, load_prompt, prompts_dir

SENSITIVITY = ["binary-human", "binary-llm", "graded-human", "graded-llm"]


def raw(relative: str) -> str:
    """A bundled file's exact text (no newline translation)."""
    return (BUNDLED / relative).read_bytes().decode("utf-8")


def documented_hash(system: str | None, user: str) -> str:
    return hashlib.sha256(json.dumps([system, user], ensure_ascii=False).encode("utf-8")).hexdigest()


# -- verbatim ----------------------------------------------------------------------------------


def test_every_bundled_template_is_its_published_text() -> None:
    assert verbatim_problems() == []


def test_every_bundled_prompt_file_is_pinned_or_written_for_the_studio() -> None:
    files = {str(p.relative_to(BUNDLED)) for p in BUNDLED.glob("*/v*/*.txt")}
    assert files == set(TEMPLATE_PARTS) | STUDIO_WRITTEN
    assert not set(TEMPLATE_PARTS) & STUDIO_WRITTEN


def test_the_unpinned_prompts_say_they_were_written_for_the_studio() -> None:
    for relative in STUDIO_WRITTEN:
        meta = json.loads((BUNDLED / relative).with_name("meta.json").read_text(encoding="utf-8"))
        assert meta["source"].startswith("written for the studio"), relative


def test_every_pin_is_used_and_named_in_the_readme() -> None:
    used = {part.pin for parts in TEMPLATE_PARTS.values() for part in parts if isinstance(part, Verbatim)}
    readme = (PINS_FILE.parent / "README.md").read_text(encoding="utf-8")
    assert used == set(load_pins())
    assert [pin for pin in load_pins() if f"`{pin}`" not in readme] == []


def test_pins_are_the_hashes_of_the_published_texts() -> None:
    if not PROMPTS_MD.is_file():
        pytest.skip(f"the published prompts are not here: {PROMPTS_MD}")
    markdown = PROMPTS_MD.read_text(encoding="utf-8")
    texts = published_texts(markdown)
    pins = load_pins()
    fresh = {pin_id: pin_of(pin_id, pins[pin_id].source if pin_id in pins else "?", t) for pin_id, t in texts.items()}
    stale = [
        json.dumps(dataclasses.asdict(pin), ensure_ascii=False) for pin in fresh.values() if pins.get(pin.id) != pin
    ]
    assert set(pins) == set(fresh), f"pins without a text in {PROMPTS_MD} or texts without a pin"
    assert stale == [], "pins that are not the published text; now:\n" + "\n".join(stale)
    # Every code block of PROMPTS.md is a text some template reproduces.
    assert [block[:60] for _, _, block in code_blocks(markdown) if block not in texts.values()] == []


def test_a_changed_first_line_of_the_umbrela_prompt_fails_the_check(tmp_path: Path) -> None:
    copy = tmp_path / "prompts"
    shutil.copytree(BUNDLED, copy)
    user = copy / "umbrela" / "v1" / "user.txt"
    original = raw("umbrela/v1/user.txt")
    user.write_bytes(original.replace("integer scale", "integer-scale", 1).encode("utf-8"))
    problems = verbatim_problems(copy)
    assert len(problems) == 1
    assert problems[0].startswith("umbrela/v1/user.txt: at character 0, not the published text 'umbrela'")
    changed_at = original.index("integer scale") + len("integer")
    assert changed_at < original.index("\n")
    assert f"the first line differs at character {changed_at}: " in problems[0]
    assert "characters where it has" not in problems[0]  # same length: only the first line tells


def test_a_lost_trailing_space_of_the_umbrela_prompt_fails_the_check(tmp_path: Path) -> None:
    copy = tmp_path / "prompts"
    shutil.copytree(BUNDLED, copy)
    user = copy / "umbrela" / "v1" / "user.txt"
    original = raw("umbrela/v1/user.txt")
    user.write_bytes(original.replace(" \n", "\n", 1).encode("utf-8"))
    assert verbatim_problems(copy) == [
        "umbrela/v1/user.txt: at character 0, not the published text 'umbrela' "
        f"({load_pins()['umbrela'].source}): {len(original) - 1} characters where it has {len(original)}; "
        "the first line is as published, so the change is further on"
    ]


def test_changed_framing_around_a_published_text_fails_the_check() -> None:
    text = raw("exam-question/v1/user.txt").replace("\nContext:", "\nPassage:")
    assert template_problems("exam-question/v1/user.txt", text, load_pins()) != []


def test_the_nugget_generation_prompt_must_swap_every_question_for_a_nugget() -> None:
    text = raw("generate-nuggets/v1/user.txt").replace('"nuggets"', '"questions"')
    assert template_problems("generate-nuggets/v1/user.txt", text, load_pins()) == [
        "generate-nuggets/v1/user.txt: 'question' left in the text where the studio says 'nugget'"
    ]


_PINNED = sorted(TEMPLATE_PARTS)


@settings(max_examples=examples(300), deadline=None)
@given(
    relative=st.sampled_from(_PINNED),
    where=st.floats(min_value=0, max_value=1, exclude_max=True),
    kind=st.sampled_from(["replace", "delete", "insert"]),
    character=st.characters(codec="utf-8"),
)
def test_any_changed_character_of_a_pinned_prompt_fails_the_check(
    relative: str, where: float, kind: str, character: str
) -> None:
    text = raw(relative)
    at = int(where * (len(text) + (kind == "insert")))
    if kind != "insert" and not text:
        kind = "insert"  # the empty UMBRELA system message can only grow
    if kind == "replace":
        changed = text[:at] + (character if character != text[at] else chr(ord(character) ^ 1)) + text[at + 1 :]
    elif kind == "delete":
        changed = text[:at] + text[at + 1 :]
    else:
        changed = text[:at] + character + text[at:]
    assert template_problems(relative, changed, load_pins()) != []


def test_umbrela_keeps_the_trailing_spaces_of_lines_two_to_four() -> None:
    lines = raw("umbrela/v1/user.txt").split("\n")
    assert [line.endswith(" ") for line in lines[:5]] == [False, True, True, True, False]


def test_umbrela_sends_an_empty_system_message() -> None:
    template = load_prompt("umbrela")
    assert template.system == ""
    assert template.render(query="q", passage="p")[0] == ("system", "")


def test_templates_end_without_a_newline_the_published_text_lacks() -> None:
    for name in ("umbrela", "binary", "thomas", "pairwise"):
        assert not raw(f"{name}/v1/user.txt").endswith("\n"), name


def test_load_prompt_returns_the_file_texts_unchanged() -> None:
    for name in ("umbrela", "binary", "thomas", "pairwise"):
        template = load_prompt(name)
        assert template.user == raw(f"{name}/v1/user.txt")
        system = BUNDLED / name / "v1" / "system.txt"
        assert template.system == (raw(f"{name}/v1/system.txt") if system.exists() else None)


def test_every_bundled_template_names_its_source() -> None:
    for folder in sorted(p for p in BUNDLED.glob("*/v*") if p.is_dir()):
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        assert meta.get("source"), folder


@pytest.mark.parametrize("name", SENSITIVITY)
def test_prompt_sensitivity_templates_fill_query_and_passage(name: str) -> None:
    template = load_prompt(name)
    assert template.system
    assert template.placeholders() == {"query", "passage"}


# -- hashes ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["umbrela", "binary", "thomas", "pairwise"])
def test_template_hash_follows_the_documented_rule(name: str) -> None:
    system_file = BUNDLED / name / "v1" / "system.txt"
    system = raw(f"{name}/v1/system.txt") if system_file.exists() else None
    assert load_prompt(name).sha256 == documented_hash(system, raw(f"{name}/v1/user.txt"))


def test_hash_changes_with_one_trailing_space() -> None:
    template = load_prompt("umbrela")
    stripped = PromptTemplate(template.name, template.user.replace(" \n", "\n", 1), template.system)
    assert stripped.sha256 != template.sha256


def test_hash_tells_no_system_message_from_an_empty_one() -> None:
    assert PromptTemplate("a", "x {query}", None).sha256 != PromptTemplate("a", "x {query}", "").sha256


# -- rendering ---------------------------------------------------------------------------------


def test_render_fills_query_and_passage() -> None:
    messages = load_prompt("binary").render(query="boiling point", passage="Water boils at 100 C.")
    assert messages == [
        (
            "user",
            "Instruction: Indicate if the passage is relevant for the question. Respond "
            "with 'Yes' or 'No'.\n\nQuestion: boiling point\nPassage: Water boils at 100 C.\nAnswer:",
        )
    ]


def test_render_leaves_a_literal_json_placeholder_alone() -> None:
    template = PromptTemplate("t", "Answer as {json} about {query}: {passage}")
    assert template.render(query="q", passage="p") == [("user", "Answer as {json} about q: p")]


def test_render_keeps_other_braces_as_written() -> None:
    template = PromptTemplate("t", 'Reply {"score": N} for {query} / {passage} {Query} { query }')
    assert template.render(query="q", passage="p")[0][1] == 'Reply {"score": N} for q / p {Query} { query }'


def test_render_does_not_substitute_inside_substituted_text() -> None:
    user = load_prompt("binary").render(query="what is {passage}?", passage="text with {query}")[0][1]
    assert "Question: what is {passage}?\nPassage: text with {query}\n" in user


def test_render_fills_the_system_message_too() -> None:
    template = PromptTemplate("t", "Q: {query}", "Judge {query} carefully.")
    assert template.render(query="x") == [("system", "Judge x carefully."), ("user", "Q: x")]


def test_render_without_a_needed_placeholder_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="passage"):
        load_prompt("umbrela").render(query="q")


def test_pairwise_render_needs_both_passages() -> None:
    with pytest.raises(UsageError, match="passage_b"):
        load_prompt("pairwise").render(query="q", passage_a="a")


# -- loading -------------------------------------------------------------------------------


def test_load_prompt_by_name_and_version() -> None:
    assert load_prompt("umbrela/v1").user == load_prompt("umbrela").user
    assert load_prompt("umbrela/v1").name == "umbrela/v1"


def test_load_prompt_accepts_a_custom_text_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.txt"
    path.write_text("Rate {passage} for {query}.\n##final score:", encoding="utf-8")
    template = load_prompt(path)
    assert template.user == "Rate {passage} for {query}.\n##final score:"
    assert template.system is None
    assert template.placeholders() == {"query", "passage"}


def test_load_prompt_accepts_a_custom_folder(tmp_path: Path) -> None:
    folder = tmp_path / "custom"
    folder.mkdir()
    (folder / "user.txt").write_text("Q: {query}\nP: {passage}\nGive {json}.", encoding="utf-8")
    (folder / "system.txt").write_text("You grade passages.", encoding="utf-8")
    (folder / "meta.json").write_text(json.dumps({"source": "ours", "placeholders": ["query", "passage"]}))
    template = load_prompt(str(folder))
    assert (template.user, template.system, template.meta["source"]) == (
        "Q: {query}\nP: {passage}\nGive {json}.",
        "You grade passages.",
        "ours",
    )
    assert template.render(query="a", passage="b") == [
        ("system", "You grade passages."),
        ("user", "Q: a\nP: b\nGive {json}."),
    ]


def test_unknown_prompt_name_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="no-such-prompt"):
        load_prompt("no-such-prompt")


def test_unknown_prompt_version_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="v9"):
        load_prompt("umbrela/v9")


def test_bundled_templates_are_found_in_the_checkout() -> None:
    assert prompts_dir().resolve() == BUNDLED.resolve()


# -- custom prompts that cannot be used ------------------------------------------------------------


def test_a_prompt_file_that_is_not_utf8_is_refused_with_its_path(tmp_path: Path) -> None:
    prompt = tmp_path / "latin1.txt"
    prompt.write_bytes("Query: {query}\nPassage: {passage}\nPertinence évaluée:".encode("latin-1"))
    with pytest.raises(UsageError, match=rf"prompt file {prompt} is not UTF-8 text \(byte \d+"):
        load_prompt(prompt)


def test_a_prompt_folder_without_user_txt_is_refused_with_its_path(tmp_path: Path) -> None:
    (tmp_path / "system.txt").write_text("You are an assessor.")
    with pytest.raises(UsageError, match=rf"prompt folder {tmp_path} has no user.txt"):
        load_prompt(tmp_path)


def test_a_template_whose_system_txt_is_not_utf8_is_refused_with_that_file(tmp_path: Path) -> None:
    (tmp_path / "user.txt").write_text("{query} {passage}")
    (tmp_path / "system.txt").write_bytes(b"\xff\xfe assessor")
    with pytest.raises(UsageError, match=f"prompt file {tmp_path / 'system.txt'} is not UTF-8"):
        load_prompt(tmp_path)


@pytest.mark.parametrize(
    ("meta", "error"),
    [("{placeholders: [query]}", InputError), ("[1, 2]", UsageError)],  # not JSON (with its line); not an object
)
def test_a_meta_json_that_is_not_an_object_is_refused_with_its_path(
    tmp_path: Path, meta: str, error: type[Exception]
) -> None:
    (tmp_path / "user.txt").write_text("{query} {passage}")
    (tmp_path / "meta.json").write_text(meta)
    with pytest.raises(error, match=str(tmp_path / "meta.json")):
        load_prompt(tmp_path)


def test_a_usable_custom_folder_still_loads(tmp_path: Path) -> None:
    (tmp_path / "user.txt").write_text("{query} {passage}")
    (tmp_path / "meta.json").write_text('{"placeholders": ["query", "passage"]}')
    template = load_prompt(tmp_path)
    assert (template.user, template.system, template.meta["placeholders"]) == (
        "{query} {passage}",
        None,
        ["query", "passage"],
    )
