"""Comparing an output with its golden file so that it holds on any machine.

Text and structure are compared exactly; so are integers, booleans and strings. Floating-point
numbers that come out of sums, products and BLAS kernels (intervals, estimates, variances) depend on
the order the machine adds in: numpy's OpenBLAS picks a kernel per CPU (Haswell, SkylakeX, ...),
and each may round the last one or two digits differently. Such numbers are compared to a relative
tolerance of `RELATIVE` (with `ABSOLUTE` near zero): a thousand times wider than what any kernel
changes (1e-15 relative, a few units in the last place), a million times narrower than the digits
the studio's documentation calls meaningful (docs/formats.md: 12 exact, 6 to report).

JSON goldens are compared as parsed values. Text goldens are compared line by line, each number
in a line to the same tolerance and the words between numbers exactly.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

RELATIVE = 1e-12
ABSOLUTE = 1e-15

NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def close(found: float, expected: float) -> bool:
    if math.isnan(found) or math.isnan(expected):
        return math.isnan(found) and math.isnan(expected)
    return math.isclose(found, expected, rel_tol=RELATIVE, abs_tol=ABSOLUTE)


def json_differences(found: Any, expected: Any, where: str = "$") -> list[str]:
    """Where `found` differs from `expected`: keys and their order, types, and values (floats to the tolerance)."""
    if isinstance(expected, dict) and isinstance(found, dict):
        if list(found) != list(expected):
            return [f"{where}: keys {list(found)} instead of {list(expected)}"]
        return [d for key in expected for d in json_differences(found[key], expected[key], f"{where}.{key}")]
    if isinstance(expected, list) and isinstance(found, list):
        if len(found) != len(expected):
            return [f"{where}: {len(found)} items instead of {len(expected)}"]
        return [
            d
            for i, (f, e) in enumerate(zip(found, expected, strict=True))
            for d in json_differences(f, e, f"{where}[{i}]")
        ]
    if type(found) is float and type(expected) is float:
        return [] if close(found, expected) else [f"{where}: {found!r} instead of {expected!r}"]
    if type(found) is not type(expected) or found != expected:
        return [f"{where}: {found!r} instead of {expected!r}"]
    return []


def text_differences(found: str, expected: str) -> list[str]:
    """Lines that differ in words, or in a number beyond the tolerance (integers exactly)."""
    found_lines, expected_lines = found.splitlines(), expected.splitlines()
    if len(found_lines) != len(expected_lines):
        return [f"{len(found_lines)} lines instead of {len(expected_lines)}"]
    differences = []
    for number, (f, e) in enumerate(zip(found_lines, expected_lines, strict=True), start=1):
        if f != e and not _same_line(f, e):
            differences.append(f"line {number}: {f!r} instead of {e!r}")
    return differences


def _same_line(found: str, expected: str) -> bool:
    if NUMBER.split(found) != NUMBER.split(expected):
        return False
    pairs = zip(NUMBER.findall(found), NUMBER.findall(expected), strict=True)
    return all(f == e or (_is_float(f) and _is_float(e) and close(float(f), float(e))) for f, e in pairs)


def _is_float(text: str) -> bool:
    return any(c in text for c in ".eE")


def golden_differences(name: str, found: str, expected: str) -> list[str]:
    if found == expected:
        return []
    if name.endswith(".json"):
        try:
            found_value, expected_value = json.loads(found), json.loads(expected)
        except ValueError:
            return text_differences(found, expected)
        if found.endswith("\n") != expected.endswith("\n"):
            return ["a final line end differs"]
        return json_differences(found_value, expected_value)
    return text_differences(found, expected)
