"""JSON read from a person's file: a key given twice in one object is refused with its line.

Python's `json` keeps the last of two equal keys without a word (`{"p1": …, "p1": …}` is one
prompt, the first lost). A file is input like any other: the second key is an error naming the
file and the line it is on. Reading stays at the C scanner's speed (the check is a hook on each
object's pairs); only a refused file is read again, by the pure-Python scanner, to find where the
second key is.
"""

from __future__ import annotations

import json
from json.decoder import JSONObject, scanstring  # type: ignore[attr-defined]  # public, not in typeshed
from json.scanner import py_make_scanner  # type: ignore[attr-defined]
from typing import Any

from studio.domain.errors import InputError


class KeyTwice(ValueError):
    """An object of the JSON holds `key` twice."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key
        self.message = f"key {json.dumps(key, ensure_ascii=False)} is given twice in one object"


def no_key_twice(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise KeyTwice(key)
            seen.add(key)
    return found


def loads(text: str, source: str, *, line: int = 1) -> Any:
    """The JSON value of `text` (from `source`, starting on `line`); `InputError` with the line
    for text that is not JSON or holds an object with a key twice."""
    try:
        return json.loads(text, object_pairs_hook=no_key_twice)
    except KeyTwice as twice:
        where = _second_key_offset(text, twice.key)
        number = line + (text.count("\n", 0, where) if where is not None else 0)
        raise InputError(source, number, twice.message) from None
    except json.JSONDecodeError as error:
        raise InputError(source, line + error.lineno - 1, f"not JSON ({error.msg})") from None


def _second_key_offset(text: str, key: str) -> int | None:
    """Where the second `key` of the first object holding it twice starts in `text`."""
    spans: list[tuple[int, int]] = []

    def parse_object(s_and_end: tuple[str, int], *args: Any) -> tuple[dict[str, Any], int]:
        pairs, end = JSONObject(s_and_end, *args[:3], lambda p: p, *args[4:])
        keys = [k for k, _ in pairs]
        if not spans and keys.count(key) > 1:
            spans.append((s_and_end[1], end))
        return dict(pairs), end

    decoder = json.JSONDecoder()
    decoder.parse_object = parse_object  # type: ignore[attr-defined]  # the pure scanner reads it
    decoder.scan_once = py_make_scanner(decoder)  # type: ignore[attr-defined]
    decoder.decode(text)
    if not spans:
        return None
    start, end = spans[0]
    keys = list(_top_level_keys(text, start, end))
    found = [offset for offset, name in keys if name == key]
    return found[1] if len(found) > 1 else None


def _top_level_keys(text: str, start: int, end: int) -> list[tuple[int, str]]:
    """(offset, key) of the keys of the object whose members are text[start:end] (its nested
    objects' keys left out)."""
    keys: list[tuple[int, str]] = []
    depth, index, expect_key = 0, start, True
    while index < end:
        char = text[index]
        if char == '"':
            value, after = scanstring(text, index + 1)
            if depth == 0 and expect_key:
                keys.append((index, value))
                expect_key = False
            index = after
            continue
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
        elif char == "," and depth == 0:
            expect_key = True
        index += 1
    return keys
