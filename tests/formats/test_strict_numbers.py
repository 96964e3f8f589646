"""The one number reader, against a reference grammar of trec_eval's numbers: ASCII decimal with an
optional sign, fraction and exponent, finite; nothing Python's `float()` and `int()` read beyond it
(underscores, digits of other scripts, surrounding whitespace, nan, inf)."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from studio.domain.numbers import (
    finite_json_number,
    read_decimal,
    read_integer,
    why_not_decimal,
    why_not_integer,
)

# The reference, written apart from the module's pattern: `\d` limited to ASCII by re.ASCII.
REFERENCE_DECIMAL = re.compile(
    r"""
    [+-]?                        # a sign
    (?: \d+ (?: \. \d* )?        # digits, maybe a point and more digits
      | \. \d+ )                 # or a point and digits
    (?: [eE] [+-]? \d+ )?        # an exponent
    """,
    re.VERBOSE | re.ASCII,
)
REFERENCE_INTEGER = re.compile(r"[+-]?\d+", re.ASCII)

# Characters that make up numbers, and the ones Python reads as parts of numbers too.
ALPHABET = "0123456789+-.eE" + "_ \t\u00a0\u3000" + "\u0663\u06f5\u0967\uff11\U0001d7d9" + "nafity"


def float_or_none(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


@settings(max_examples=examples(2000))
@given(st.text(alphabet=ALPHABET, max_size=14))
@example("1_0")
@example("\u0663")
@example("\uff12.5")
@example(" 1")
@example("1\u00a0")
@example("nan")
@example("-Infinity")
@example("1e400")
@example("1e-400")
@example("+.5e-3")
def test_read_decimal_accepts_exactly_the_reference_grammar_when_finite(text: str) -> None:
    grammatical = REFERENCE_DECIMAL.fullmatch(text) is not None
    expected = float(text) if grammatical and math.isfinite(float(text)) else None
    assert read_decimal(text) == expected
    if expected is None:
        assert why_not_decimal(text).startswith("is ")


@settings(max_examples=examples(500))
@given(
    sign=st.sampled_from(["", "+", "-"]),
    whole=st.text(alphabet="0123456789", max_size=25),
    point=st.booleans(),
    fraction=st.text(alphabet="0123456789", max_size=25),
    exponent=st.one_of(
        st.none(), st.tuples(st.sampled_from("eE"), st.sampled_from(["", "+", "-"]), st.integers(0, 999))
    ),
)
def test_every_text_the_grammar_generates_reads_as_python_reads_it(
    sign: str, whole: str, point: bool, fraction: str, exponent: tuple[str, str, int] | None
) -> None:
    body = whole + ("." + fraction if point else "")
    if not whole and not (point and fraction):
        return  # the grammar needs a digit on one side of the point
    text = sign + body + ("" if exponent is None else f"{exponent[0]}{exponent[1]}{exponent[2]}")
    value = float(text)
    assert read_decimal(text) == (value if math.isfinite(value) else None)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_finite_float_reads_back_from_its_repr(value: float) -> None:
    assert read_decimal(repr(value)) == value
    assert read_decimal(f"{value:.17e}") == value


@pytest.mark.parametrize("text", ["nan", "NaN", "-nan", "inf", "+Infinity", "-INF"])
def test_nan_and_infinity_are_named_as_not_finite(text: str) -> None:
    assert float_or_none(text) is not None  # Python would read them
    assert read_decimal(text) is None
    assert why_not_decimal(text) == "is not a finite number"


@pytest.mark.parametrize("text", ["1_0", "\u0661", "\uff13", "1\u00a0", "\t2", "0x1A", "1e", "", "."])
def test_what_python_or_atof_read_beyond_the_grammar_is_not_a_number(text: str) -> None:
    assert read_decimal(text) is None
    assert why_not_decimal(text).startswith("is not a number")


@settings(max_examples=examples(1000))
@given(st.text(alphabet="0123456789+-_ \u0663\uff11.e", max_size=22))
@example("9223372036854775807")
@example("-9223372036854775808")
@example("9223372036854775808")
@example("1_0")
@example("\uff13")
def test_read_integer_accepts_exactly_the_reference_grammar_within_64_bits(text: str) -> None:
    expected = int(text) if REFERENCE_INTEGER.fullmatch(text) else None
    if expected is not None and not -(2**63) <= expected < 2**63:
        assert read_integer(text) is None
        assert "out of range" in why_not_integer(text)
        return
    assert read_integer(text) == expected
    if expected is None:
        assert why_not_integer(text).startswith("is not an integer")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1, 1.0),
        (2.5, 2.5),
        (-0.0, -0.0),
        (True, None),
        ("1", None),
        (None, None),
        (float("nan"), None),
        (float("inf"), None),
        (10**400, None),
        ([1], None),
    ],
)
def test_a_json_number_must_be_a_finite_number(value: object, expected: float | None) -> None:
    assert finite_json_number(value) == expected
