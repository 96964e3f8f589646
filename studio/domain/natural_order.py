"""Natural order of ids: "2" before "10", "LLM-2" before "LLM-10", as a reader counts them (text order
puts "10" between "1" and "2")."""

from __future__ import annotations

import re

_DIGITS = re.compile(r"(\d+)")

NaturalKey = tuple[tuple[tuple[int, int, str], ...], str]


def natural_key(text: str) -> NaturalKey:
    """A sort key: runs of digits compare as numbers, the rest as case-folded text; the text itself
    breaks ties ("7" and "007")."""
    parts = tuple(
        (0, int(part), "") if part.isdigit() else (1, 0, part.casefold()) for part in _DIGITS.split(text) if part
    )
    return parts, text


def natural_sorted(texts: list[str]) -> list[str]:
    return sorted(texts, key=natural_key)
