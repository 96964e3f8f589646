"""The bundled prompt templates reproduce the published prompts (PROMPTS.md) character for
character, their hashes identify that text, and rendering fills only named placeholders."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from studio.domain.errors import UsageError
from studio.judges.prompts import PromptTemplate, load_prompt, prompts_dir

REPO = Path(__file__).resolve().parents[2]
PROMPTS_MD = REPO.parent / "shared" / "PROMPTS.md"
BUNDLED = REPO / "assets" / "prompts"
PAIRWISE_SYSTEM = "You are a highly experienced and accurate assessor for TREC."

_FENCE = re.compile(r"^```\n(.*?)\n```$", re.MULTILINE | re.DOTALL)


def published_blocks() -> list[tuple[str, str, str]]:
    """(section heading, text just before the block, block text) of every fenced code block."""
    if not PROMPTS_MD.is_file():
        pytest.skip(f"the published prompts are not here: {PROMPTS_MD}")
    text = PROMPTS_MD.read_text(encoding="utf-8")
    blocks = []
    for match in _FENCE.finditer(text):
        before = text[: match.start()]
        headings = re.findall(r"^## (.+)$", before, re.MULTILINE)
        blocks.append((headings[-1] if headings else "", before[-200:], match.group(1)))
    return blocks


def published(section_start: str, lead_in: str = "") -> str:
    """The first block of the section whose heading starts with `section_start` (and whose
    preceding text contains `lead_in`)."""
    found = [b for h, pre, b in published_blocks() if h.startswith(section_start) and lead_in in pre]
    assert found, f"no code block under '## {section_start}…' in {PROMPTS_MD}"
    return found[0]


def raw(relative: str) -> str:
    """A bundled file's exact text (no newline translation)."""
    return (BUNDLED / relative).read_bytes().decode("utf-8")


def documented_hash(system: str | None, user: str) -> str:
    return hashlib.sha256(json.dumps([system, user], ensure_ascii=False).encode("utf-8")).hexdigest()


# -- verbatim ----------------------------------------------------------------------------------


def test_umbrela_user_prompt_is_the_published_text() -> None:
    assert raw("umbrela/v1/user.txt") == published("UMBRELA")


def test_umbrela_keeps_the_trailing_spaces_of_lines_two_to_four() -> None:
    lines = raw("umbrela/v1/user.txt").split("\n")
    assert [line.endswith(" ") for line in lines[:5]] == [False, True, True, True, False]
    assert published("UMBRELA").split("\n")[1:4] == lines[1:4]


def test_umbrela_sends_an_empty_system_message() -> None:
    template = load_prompt("umbrela")
    assert template.system == ""
    assert template.render(query="q", passage="p")[0] == ("system", "")


def test_binary_prompt_is_the_published_text() -> None:
    assert raw("binary/v1/user.txt") == published("Binary", "Binary (Faggioli")


def test_thomas_prompt_is_the_published_text() -> None:
    assert raw("thomas/v1/user.txt") == published("Binary", "`Thomas` (0–2)")


def test_pairwise_user_prompt_is_the_published_text() -> None:
    assert raw("pairwise/v1/user.txt") == published("Pairwise")


def test_pairwise_system_prompt_is_the_published_text() -> None:
    section = PROMPTS_MD.read_text(encoding="utf-8") if PROMPTS_MD.is_file() else pytest.skip("no PROMPTS.md")
    quoted = re.search(r"## Pairwise.*?\nSystem: `([^`]+)`", section, re.DOTALL)
    assert quoted is not None
    assert raw("pairwise/v1/system.txt") == quoted.group(1) == PAIRWISE_SYSTEM


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


# -- hashes ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["umbrela", "binary", "thomas", "pairwise"])
def test_template_hash_follows_the_documented_rule(name: str) -> None:
    system_file = BUNDLED / name / "v1" / "system.txt"
    system = raw(f"{name}/v1/system.txt") if system_file.exists() else None
    assert load_prompt(name).sha256 == documented_hash(system, raw(f"{name}/v1/user.txt"))


def test_published_texts_hash_to_the_bundled_hashes() -> None:
    assert load_prompt("umbrela").sha256 == documented_hash("", published("UMBRELA"))
    assert load_prompt("binary").sha256 == documented_hash(None, published("Binary", "Binary (Faggioli"))
    assert load_prompt("pairwise").sha256 == documented_hash(PAIRWISE_SYSTEM, published("Pairwise"))


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


def _thesis_prompts() -> dict[str, tuple[str, str]]:
    """(system, user) of the four prompt-sensitivity examples of PROMPTS.md, `\\n` unescaped."""
    if not PROMPTS_MD.is_file():
        pytest.skip(f"the published prompts are not here: {PROMPTS_MD}")
    found: dict[str, tuple[str, str]] = {}
    # A bullet continues on indented lines: join them first.
    text = re.sub(r"\n  (?=\S)", "", PROMPTS_MD.read_text(encoding="utf-8"))
    for line in text.splitlines():
        match = re.match(r"^\* (Binary|Graded), (human|LLM)-written — (.*)$", line)
        if not match:
            continue
        quoted = [q.replace("\\n", "\n") for q in re.findall(r"`([^`]*)`", match.group(3))]
        # "system as above": the human-written binary prompt's system message.
        system, user = (found["binary-human"][0], quoted[0]) if "system as above" in match.group(3) else quoted[:2]
        found[f"{match.group(1).lower()}-{match.group(2).lower()}"] = (system, user)
    return found


@pytest.mark.parametrize("name", ["binary-human", "binary-llm", "graded-human", "graded-llm"])
def test_prompt_sensitivity_templates_are_the_published_text(name: str) -> None:
    system, user = _thesis_prompts()[name]
    template = load_prompt(name)
    assert (template.system, template.user) == (system, user)
    assert template.placeholders() == {"query", "passage"}
