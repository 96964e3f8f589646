"""Pins of the published prompts (tests/published/prompts/pins.json) and the check that a bundled
template is made of those texts, character for character.

A pin keeps a published text's sha256, length and first line, so the check runs in every clone
and can still say roughly what differs. `PROMPTS.md` (outside the repository, when present) is
where the pins come from; `published_texts` finds each pinned text in it again.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUNDLED = REPO / "assets" / "prompts"
PINS_FILE = REPO / "tests" / "published" / "prompts" / "pins.json"
# The published prompts document; an environment variable may point elsewhere (or at nothing).
PROMPTS_MD = Path(os.environ.get("STUDIO_PUBLISHED_PROMPTS", REPO.parent / "shared" / "PROMPTS.md"))


@dataclass(frozen=True)
class Pin:
    """What the repository keeps of one published text."""

    id: str
    source: str
    sha256: str
    length: int
    first_line: str


@dataclass(frozen=True)
class Verbatim:
    """A stretch of a template that is a published text; `swapped` = (published word, bundled
    word) when the studio uses the text with one word replaced, as PROMPTS.md allows."""

    pin: str
    swapped: tuple[str, str] | None = None
    # Words the studio replaces in the prose around the placeholders (which keep their names):
    # (published word, bundled word) pairs, e.g. a passage prompt adapted to a generated response.
    swaps: tuple[tuple[str, str], ...] = ()


# The passage prompts adapted to a generated answer (`studio judge --answers`).
ANSWER_SWAPS = (("passage", "response"), ("Passage", "Response"))
_PLACEHOLDERS = re.compile(r"(\{[a-z_]+\})")


def prose_swapped_back(segment: str, swaps: tuple[tuple[str, str], ...]) -> str | None:
    """`segment` with each bundled word of `swaps` turned back into the published one outside the
    placeholders; None when a published word is still in the prose (the adaptation missed it)."""
    parts = _PLACEHOLDERS.split(segment)
    prose = parts[::2]
    if any(original in text for original, _ in swaps for text in prose):
        return None
    for original, replacement in swaps:
        prose = [text.replace(replacement, original) for text in prose]
    parts[::2] = prose
    return "".join(parts)


# A template file is these parts in order: published texts and the studio's own framing (plain
# strings). A file with no parts must be empty.
Part = Verbatim | str
_QUESTION_FRAME = "\nQuestion: {question}\nContext: {passage}"
_NUGGET_FRAME = "\nKey fact: {nugget}\nContext: {passage}"
TEMPLATE_PARTS: dict[str, tuple[Part, ...]] = {
    "umbrela/v1/user.txt": (Verbatim("umbrela"),),
    "umbrela/v1/system.txt": (),
    "binary/v1/user.txt": (Verbatim("binary-faggioli"),),
    "thomas/v1/user.txt": (Verbatim("thomas"),),
    "pairwise/v1/system.txt": (Verbatim("pairwise-system"),),
    "pairwise/v1/user.txt": (Verbatim("pairwise-user"),),
    "exam-question/v1/user.txt": (Verbatim("exam-question-rating"), _QUESTION_FRAME),
    "exam-nugget/v1/user.txt": (Verbatim("exam-nugget-rating"), _NUGGET_FRAME),
    "extract-answer/v1/user.txt": (Verbatim("extract-answer-instruction"), _QUESTION_FRAME),
    "extract-nugget/v1/user.txt": (Verbatim("extract-nugget-instruction"), _NUGGET_FRAME),
    "generate-questions/v1/user.txt": (
        Verbatim("bank-generation-questions"),
        " ",
        Verbatim("bank-generation-output-instruction"),
    ),
    "generate-nuggets/v1/user.txt": (
        "Break the query '{query}' ",  # what the published variant's leading "…" stands for
        Verbatim("bank-generation-nuggets-variant"),
        " ",
        Verbatim("bank-generation-output-instruction", swapped=("question", "nugget")),
    ),
    "nuggetize-create/v1/system.txt": (Verbatim("nuggetize-create-system"),),
    "nuggetize-create/v1/user.txt": (Verbatim("nuggetize-create-user"),),
    "nuggetize-score/v1/system.txt": (Verbatim("nuggetize-score-system"),),
    "nuggetize-score/v1/user.txt": (Verbatim("nuggetize-score-user"),),
    "nugget-assign/v1/system.txt": (Verbatim("nuggetize-assign-system"),),
    "nugget-assign/v1/user.txt": (Verbatim("nuggetize-assign-user"),),
    "subtopic/v1/system.txt": (Verbatim("pairwise-system"),),
    "binary-human/v1/system.txt": (Verbatim("sensitivity-binary-human-system"),),
    "binary-human/v1/user.txt": (Verbatim("sensitivity-binary-human-user"),),
    "binary-llm/v1/system.txt": (Verbatim("sensitivity-binary-llm-system"),),
    "binary-llm/v1/user.txt": (Verbatim("sensitivity-binary-llm-user"),),
    # "system as above": the human-written binary prompt's system message.
    "graded-human/v1/system.txt": (Verbatim("sensitivity-binary-human-system"),),
    "graded-human/v1/user.txt": (Verbatim("sensitivity-graded-human-user"),),
    "graded-llm/v1/system.txt": (Verbatim("sensitivity-graded-llm-system"),),
    "graded-llm/v1/user.txt": (Verbatim("sensitivity-graded-llm-user"),),
    "binary-answer/v1/user.txt": (Verbatim("binary-faggioli", swaps=ANSWER_SWAPS),),
    "umbrela-answer/v1/user.txt": (Verbatim("umbrela", swaps=ANSWER_SWAPS),),
    "umbrela-answer/v1/system.txt": (),
    "subtopic-answer/v1/system.txt": (Verbatim("pairwise-system"),),
}
# Texts written for the studio: no published text to pin.
STUDIO_WRITTEN = frozenset({"subtopic/v1/user.txt", "generate-subtopics/v1/user.txt", "subtopic-answer/v1/user.txt"})


def sha256(text: str) -> str:
    """The pins' hash: sha256 of the text's UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def pin_of(pin_id: str, source: str, text: str) -> Pin:
    """The pin of a published text."""
    return Pin(pin_id, source, sha256(text), len(text), text.split("\n", 1)[0])


def load_pins(path: Path = PINS_FILE) -> dict[str, Pin]:
    """The pins by id."""
    entries = json.loads(path.read_text(encoding="utf-8"))["pins"]
    return {entry["id"]: Pin(**entry) for entry in entries}


def bundled_text(relative: str, prompts: Path = BUNDLED) -> str:
    """A template file's exact text (no newline translation, so a CRLF counts as a change)."""
    return (prompts / relative).read_bytes().decode("utf-8")


def pin_difference(text: str, pin: Pin) -> str | None:
    """None when `text` is the pinned text; else what the pin can tell about the difference."""
    if sha256(text) == pin.sha256:
        return None
    found: list[str] = []
    if len(text) != pin.length:
        found.append(f"{len(text)} characters where it has {pin.length}")
    first_line = text.split("\n", 1)[0]
    if first_line != pin.first_line:
        at = next(
            (i for i, (a, b) in enumerate(zip(first_line, pin.first_line, strict=False)) if a != b),
            min(len(first_line), len(pin.first_line)),
        )
        window = slice(max(0, at - 20), at + 20)
        found.append(
            f"the first line differs at character {at}: {first_line[window]!r} where it has {pin.first_line[window]!r}"
        )
    else:
        found.append("the first line is as published, so the change is further on")
    return f"not the published text {pin.id!r} ({pin.source}): " + "; ".join(found)


def template_problems(relative: str, text: str, pins: dict[str, Pin]) -> list[str]:
    """Where a template file's text departs from its parts (TEMPLATE_PARTS); empty when it does not."""
    parts = TEMPLATE_PARTS[relative]
    rest, position = text, 0
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if isinstance(part, str):
            if not rest.startswith(part):
                return [f"{relative}: at character {position}, {rest[: len(part)]!r} instead of {part!r}"]
            rest, position = rest[len(part) :], position + len(part)
            continue
        pin = pins[part.pin]
        if part.swapped is not None and not last:
            raise ValueError(f"{relative}: a text with a swapped word must come last")
        # The last part takes the rest, so a text that grew or shrank shows as a length change.
        segment = rest if last else rest[: pin.length]
        published = segment
        if part.swaps:
            swapped_back = prose_swapped_back(segment, part.swaps)
            if swapped_back is None:
                return [f"{relative}: a published word of {part.swaps} left in the prose"]
            published = swapped_back
        if part.swapped is not None:
            original, replacement = part.swapped
            if original in segment:
                return [f"{relative}: {original!r} left in the text where the studio says {replacement!r}"]
            published = segment.replace(replacement, original)
        difference = pin_difference(published, pin)
        if difference is not None:
            return [f"{relative}: at character {position}, {difference}"]
        rest, position = rest[len(segment) :], position + len(segment)
    return [f"{relative}: {len(rest)} characters after the last expected part: {rest[:40]!r}"] if rest else []


def verbatim_problems(prompts: Path = BUNDLED, pins: dict[str, Pin] | None = None) -> list[str]:
    """Every departure of the template files in `prompts` from the published texts."""
    pins = load_pins() if pins is None else pins
    problems: list[str] = []
    for relative in TEMPLATE_PARTS:
        if not (prompts / relative).is_file():
            problems.append(f"{relative}: missing")
            continue
        problems.extend(template_problems(relative, bundled_text(relative, prompts), pins))
    return problems


# -- finding the pinned texts in PROMPTS.md ----------------------------------------------------

_FENCE = re.compile(r"^```\n(.*?)\n```$", re.MULTILINE | re.DOTALL)
# Code blocks: (section heading starts with, text since the previous block contains).
_BLOCKS = {
    "umbrela": ("UMBRELA", ""),
    "binary-faggioli": ("Binary", "Binary (Faggioli"),
    "thomas": ("Binary", "`Thomas` (0–2)"),
    "pairwise-user": ("Pairwise", ""),
    "exam-question-rating": ("Rubric", "`QuestionSelfRatedUnanswerablePromptWithChoices`"),
    "exam-nugget-rating": ("Rubric", "`NuggetSelfRatedPrompt`"),
    "bank-generation-questions": ("Rubric", "Test-bank generation"),
    "nuggetize-create-user": ("AutoNuggetizer", "Create — system"),
    "nuggetize-score-user": ("AutoNuggetizer", "Score — system"),
    "nuggetize-assign-user": ("AutoNuggetizer", "Assign — system"),
}
# Texts quoted inline: a pattern whose one group is the text.
_INLINE = {
    "pairwise-system": r"^System: `([^`]+)`$",
    "nuggetize-create-system": r"^Create — system: `([^`]+)`$",
    "nuggetize-score-system": r"^Score — system: `([^`]+)`$",
    "nuggetize-assign-system": r"^Assign — system: `([^`]+)`$",
    "extract-answer-instruction": r"Answer extraction, for verification:\s*`([^`]+)`",
    "extract-nugget-instruction": r"for nuggets,\s*`([^`]+)`",
    # Inline code that itself holds ``` fences: it ends at the closing `}```` of the JSON example.
    "bank-generation-output-instruction": r"Output instruction appended: `(Give [^\n]*?\}```)`",
    "bank-generation-nuggets-variant": r'Nugget variant: "…([^"]+)"',
}
_SENSITIVITY = re.compile(r"^\* (Binary|Graded), (human|LLM)-written — (.*)$", re.MULTILINE)


def code_blocks(markdown: str) -> list[tuple[str, str, str]]:
    """(section heading, text since the previous block, block text) of every fenced code block."""
    blocks = []
    previous_end = 0
    for match in _FENCE.finditer(markdown):
        headings = re.findall(r"^## (.+)$", markdown[: match.start()], re.MULTILINE)
        blocks.append((headings[-1] if headings else "", markdown[previous_end : match.start()], match.group(1)))
        previous_end = match.end()
    return blocks


def published_texts(markdown: str) -> dict[str, str]:
    """Every pinned text as PROMPTS.md gives it: blocks as they stand, inline texts with wrapped
    lines joined by a space and `\\n` escapes turned into newlines."""
    texts: dict[str, str] = {}
    blocks = code_blocks(markdown)
    for pin_id, (section, lead_in) in _BLOCKS.items():
        found = [text for heading, before, text in blocks if heading.startswith(section) and lead_in in before]
        if found:
            texts[pin_id] = found[0]
    for pin_id, pattern in _INLINE.items():
        match = re.search(pattern, markdown, re.MULTILINE)
        if match:
            texts[pin_id] = re.sub(r"\s*\n\s*", " ", match.group(1))
    # A bullet continues on indented lines: join them before reading the quoted system / user.
    for kind, author, quoted in _SENSITIVITY.findall(re.sub(r"\n  (?=\S)", "", markdown)):
        quotes = [q.replace("\\n", "\n") for q in re.findall(r"`([^`]*)`", quoted)]
        prefix = f"sensitivity-{kind.lower()}-{author.lower()}"
        if "system as above" in quoted:  # the system message of the bullet before: pinned there
            texts[f"{prefix}-user"] = quotes[0]
        else:
            texts[f"{prefix}-system"], texts[f"{prefix}-user"] = quotes[:2]
    return texts
