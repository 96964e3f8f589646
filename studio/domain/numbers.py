"""Numbers written as text, read as trec_eval reads them and no more leniently.

trec_eval reads grades with `atoi` and scores with `atof`: ASCII digits with an optional sign,
fraction and exponent. Python's `int()` and `float()` read far more: underscores between digits
(`1_0` is 10), the digits of every script (Arabic-Indic, full-width), surrounding whitespace of
every kind, `nan`, `inf` and `infinity`. Every number the studio reads from text (file formats,
grades given on the command line) goes through this module, and the bulk reader's SQL checks
fields against the same patterns, so all of them accept exactly the same texts.

A number is at most `MAX_NUMBER_LENGTH` characters long: room for every finite double written out
as an integer (309 digits and a sign, as `str(int(x))` writes a grade of 1e308) and for any
sensible padding of a fraction, while a file of megabytes of digits is refused before it is
converted (and quoted) whole.

The values must be finite: a grade, score, probability or confidence that is NaN or infinite
breaks every measure computed from it.
"""

from __future__ import annotations

import math
import re

# Patterns valid both in Python's `re` and in RE2 (DuckDB's regular expressions).
DECIMAL_PATTERN = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
INTEGER_PATTERN = r"[+-]?[0-9]+"
DECIMAL_FORM = "ASCII digits with an optional sign, fraction and exponent"
MAX_NUMBER_LENGTH = 400
INTEGER_LIMITS = (-(2**63), 2**63 - 1)  # what the project file stores ranks in (BIGINT)

_DECIMAL = re.compile(DECIMAL_PATTERN)
_INTEGER = re.compile(INTEGER_PATTERN)


def read_decimal(text: str) -> float | None:
    """The finite number `text` spells in ASCII decimal notation; None for anything else
    (`why_not_decimal` says why)."""
    if len(text) > MAX_NUMBER_LENGTH or _DECIMAL.fullmatch(text) is None:
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def read_integer(text: str) -> int | None:
    """The integer `text` spells in ASCII digits (optional sign) within a 64-bit integer's range;
    None for anything else (`why_not_integer` says why)."""
    if len(text) > MAX_NUMBER_LENGTH or _INTEGER.fullmatch(text) is None:
        return None
    value = int(text)
    low, high = INTEGER_LIMITS
    return value if low <= value <= high else None


def why_not_decimal(text: str) -> str:
    """Why `read_decimal` refuses `text`, as the end of a sentence naming it."""
    if len(text) > MAX_NUMBER_LENGTH:
        return _too_long(text)
    if _DECIMAL.fullmatch(text) is not None:
        return "is too large to be a finite number"
    if text.strip().lower().lstrip("+-") in ("nan", "inf", "infinity"):
        return "is not a finite number"
    return f"is not a number ({DECIMAL_FORM})"


def why_not_integer(text: str) -> str:
    """Why `read_integer` refuses `text`, as the end of a sentence naming it."""
    if len(text) > MAX_NUMBER_LENGTH:
        return _too_long(text)
    if _INTEGER.fullmatch(text) is not None:
        return "is out of range (a 64-bit integer)"
    return "is not an integer (ASCII digits with an optional sign)"


def _too_long(text: str) -> str:
    return f"is {len(text)} characters long, too long for a number (at most {MAX_NUMBER_LENGTH})"


def finite_json_number(value: object) -> float | None:
    """A JSON value as a finite float: integers and floats only (not booleans, not strings), and
    not the NaN or Infinity some JSON writers emit."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:  # an integer too large for a float
        return None
    return number if math.isfinite(number) else None
