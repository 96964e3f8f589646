"""JSON as the studio writes it: never a number JSON does not have.

Python's `json` writes NaN and infinities as `NaN` and `Infinity`, which no strict JSON reader
takes (nor `jq`, nor JavaScript's `JSON.parse`). Every JSON the studio prints or writes goes
through `json_text`: a value that is not finite becomes `null` (a figure that could not be
computed), and anything that still is not finite is an error rather than invalid JSON.
"""

from __future__ import annotations

import json

from studio.domain.numbers import finite_or_none


def json_text(value: object, *, indent: int | None = None, sort_keys: bool = False, ensure_ascii: bool = False) -> str:
    """`value` as JSON text, non-finite floats written as null (`json.dumps`'s other defaults)."""
    return json.dumps(
        finite_or_none(value), indent=indent, sort_keys=sort_keys, ensure_ascii=ensure_ascii, allow_nan=False
    )
