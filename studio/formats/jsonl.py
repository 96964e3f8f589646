"""JSON Lines with line numbers, and the field look-ups the published formats need."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from studio.domain.errors import InputError
from studio.formats.text_input import numbered_lines


def json_objects(text: str, source: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line; anything but a JSON object is refused."""
    for number, line in numbered_lines(text):
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            raise InputError(source, number, f"invalid JSON: {error.msg}") from error
        if not isinstance(value, dict):
            raise InputError(source, number, "expected a JSON object")
        yield number, value


def first_field(
    record: dict[str, Any], names: Sequence[str], source: str, line: int, *, required: bool = True
) -> str | None:
    """The first of `names` present in `record`, as text (ids may be numbers in the wild)."""
    for name in names:
        value = record.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise InputError(source, line, f"field {name!r} must be text, not {type(value).__name__}")
        return str(value)
    if required:
        raise InputError(source, line, f"missing field: one of {', '.join(names)}")
    return None


def looks_like_jsonl(text: str) -> bool:
    """True when the first non-blank character opens a JSON object."""
    stripped = text.lstrip()
    return stripped.startswith("{")
