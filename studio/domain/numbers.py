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

A grade must moreover lie within trec_eval's own range: trec_eval holds a grade in a C `long`
(64 bits), so no grade it can read exceeds 2**63 in magnitude. Finite is not enough for a grade:
gains are summed (nDCG's ideal over every relevant document), squared (weighted κ, α's interval
distances, an audit's variances) and multiplied, and a grade such as 1.7976931348623157e308
overflows all of them. Within ±2**63 the largest of those figures, a squared difference of two
grades (under 2**130, about 1.4e39) summed over a billion pairs, stays far below a double's
1.8e308, so nothing the studio computes from grades overflows.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

from studio.domain.errors import UsageError

# Patterns valid both in Python's `re` and in RE2 (DuckDB's regular expressions).
DECIMAL_PATTERN = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
INTEGER_PATTERN = r"[+-]?[0-9]+"
DECIMAL_FORM = "ASCII digits with an optional sign, fraction and exponent"
MAX_NUMBER_LENGTH = 400
INTEGER_LIMITS = (-(2**63), 2**63 - 1)  # what the project file stores ranks in (BIGINT)
# The largest magnitude of a grade: trec_eval's `long` (2**63; `9223372036854775807`, the largest
# long, reads as this double).
GRADE_LIMIT = 2.0**63
GRADE_RANGE = "a grade lies within ±2**63 (±9.2e18), as trec_eval holds grades in a C long"

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


def grade_problem(value: float) -> str | None:
    """Why a number cannot be a grade, as the end of a sentence naming it; None when it can."""
    if not math.isfinite(value):
        return "is not a finite number"
    if abs(value) > GRADE_LIMIT:
        return f"is too large in magnitude: {GRADE_RANGE}"
    return None


# A person's grade in an audit or a campaign: the grades the screens offer (TREC DL's and
# UMBRELA's 0–3); an import or a team's event of another is refused.
ASSESSOR_GRADES = (0.0, 1.0, 2.0, 3.0)
ASSESSOR_SCALE = "0–3 (whole numbers)"


def assessor_grade_problem(grade: float) -> str | None:
    """Why `grade` is not a person's grade of an audit or campaign pair, as the end of a sentence
    naming it; None when it is one."""
    if grade not in ASSESSOR_GRADES:
        return f"is outside the assessors' scale {ASSESSOR_SCALE}"
    return None


def check_grade(value: float) -> float:
    """`value` when it can be a grade; a `UsageError` saying why not (a grade given to the Python API)."""
    problem = grade_problem(value)
    if problem is not None:
        raise UsageError(f"grade {value!r} {problem}")
    return value


def read_grade(text: str) -> float | None:
    """The grade `text` spells: a finite ASCII decimal within ±GRADE_LIMIT; None for anything else
    (`why_not_grade` says why)."""
    value = read_decimal(text)
    return value if value is not None and grade_problem(value) is None else None


def why_not_grade(text: str) -> str:
    """Why `read_grade` refuses `text`, as the end of a sentence naming it."""
    value = read_decimal(text)
    if value is None:
        return why_not_decimal(text)
    return grade_problem(value) or "is a grade"


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


def json_grade(value: object) -> float | None:
    """A JSON value as a grade: a finite JSON number within ±GRADE_LIMIT; None for anything else
    (`why_not_json_grade` says why)."""
    number = finite_json_number(value)
    return number if number is not None and grade_problem(number) is None else None


def why_not_json_grade(value: object) -> str:
    """Why `json_grade` refuses `value`, as the end of a sentence naming it."""
    number = finite_json_number(value)
    if number is None:
        return "is not a finite number"
    return grade_problem(number) or "is a grade"


def finite_or_none(value: object) -> object:
    """A value to write as JSON with every float that is not finite (NaN, ±inf) replaced by None
    (JSON null), in lists, tuples and dict values at any depth: JSON has no such numbers, and the
    `NaN` and `Infinity` Python's `json` writes by default are refused by strict readers."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {key: finite_or_none(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [finite_or_none(item) for item in value]
    return value
