"""JSON Lines with line numbers, and the field look-ups the published formats need.

A line is refused, with its number, when it is no JSON, nests deeper than `MAX_DEPTH` (no
published format comes close; Python's reader would fail on deep nesting with a RecursionError),
or holds an integer too long for Python to read. Ids (qids, docids) must be JSON strings or
integers: a float such as `7.0` or `NaN` would become the id "7.0" or "nan".
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from studio.domain.errors import InputError
from studio.domain.numbers import finite_json_number
from studio.formats.checks import checked_id
from studio.formats.json_input import KeyTwice, no_key_twice
from studio.formats.text_input import Text, first_text, numbered_lines

MAX_DEPTH = 64  # arrays and objects inside each other


def _depth(value: Any) -> int:
    """How deeply arrays and objects nest in `value` (walked without recursion); it stops
    counting once past `MAX_DEPTH`."""
    deepest, pending = 0, [(value, 1)]
    while pending and deepest <= MAX_DEPTH:
        item, depth = pending.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is not None:
            deepest = max(deepest, depth)
            pending.extend((child, depth + 1) for child in children)
    return deepest


def json_value(line: str, source: str, number: int) -> Any:
    """The JSON value of one line, or an `InputError` naming the line and what is wrong."""
    try:
        value = json.loads(line, object_pairs_hook=no_key_twice)
    except KeyTwice as twice:
        raise InputError(source, number, twice.message) from None
    except json.JSONDecodeError as error:
        raise InputError(source, number, f"invalid JSON: {error.msg}") from error
    except RecursionError as error:
        raise InputError(source, number, f"JSON nested deeper than {MAX_DEPTH} levels") from error
    except ValueError as error:  # an integer of more digits than Python reads
        raise InputError(source, number, f"invalid JSON: {error}") from error
    # Only a line with many brackets can nest deeply: the count is an upper bound on the depth.
    if line.count("[") + line.count("{") > MAX_DEPTH and _depth(value) > MAX_DEPTH:
        raise InputError(source, number, f"JSON nested deeper than {MAX_DEPTH} levels")
    return value


def json_objects(text: Text, source: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line; anything but a JSON object is refused."""
    for number, line in numbered_lines(text):
        value = json_value(line, source, number)
        if not isinstance(value, dict):
            raise InputError(source, number, "expected a JSON object")
        yield number, value


def first_field(
    record: dict[str, Any], names: Sequence[str], source: str, line: int, *, required: bool = True
) -> str | None:
    """The first of `names` present in `record`, as text (numbers in the wild become text)."""
    for name in names:
        value = record.get(name)
        if value is None:
            continue
        if isinstance(value, str):
            return value
        if finite_json_number(value) is None:
            raise InputError(source, line, f"field {name!r} must be text, not {_shown(value)}")
        return str(value)
    if required:
        raise InputError(source, line, f"missing field: one of {', '.join(names)}")
    return None


def id_value(value: Any, name: str, source: str, line: int) -> str:
    """A JSON value used as a qid or docid: a string or an integer, checked as an id."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InputError(source, line, f"field {name!r} must be a string or an integer (an id), not {_shown(value)}")
    return checked_id(str(value), name, source, line)


def id_field(
    record: dict[str, Any], names: Sequence[str], source: str, line: int, *, required: bool = True
) -> str | None:
    """The first of `names` present in `record`, as an id (`id_value`)."""
    for name in names:
        value = record.get(name)
        if value is not None:
            return id_value(value, name, source, line)
    if required:
        raise InputError(source, line, f"missing field: one of {', '.join(names)}")
    return None


def _shown(value: Any) -> str:
    """A JSON value in a message: numbers as written, other values by their JSON type."""
    if isinstance(value, float | int) and not isinstance(value, bool):
        return repr(value)
    return {dict: "an object", list: "an array", bool: "a boolean"}.get(type(value), type(value).__name__)


def looks_like_jsonl(text: Text) -> bool:
    """True when the first non-blank character opens a JSON object."""
    return first_text(text).startswith("{")
