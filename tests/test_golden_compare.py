"""The golden comparison forgives what a BLAS kernel changes and nothing else."""

from __future__ import annotations

import json

from golden_compare import golden_differences

ESTIMATE = {"width": 0.47221553833064056, "low": 0.9163630929649279, "n": 12, "decision": "supported", "ok": True}


def test_last_digits_of_a_float_are_forgiven_in_json() -> None:
    other_kernel = dict(ESTIMATE, width=0.4722155383306406, low=0.9163630929649288)
    assert golden_differences("e.json", json.dumps(other_kernel), json.dumps(ESTIMATE)) == []


def test_a_changed_digit_a_count_a_word_or_a_key_order_is_not() -> None:
    for changed in (
        dict(ESTIMATE, width=0.4722156),
        dict(ESTIMATE, n=13),
        dict(ESTIMATE, decision="refuted"),
        dict(ESTIMATE, ok=1),
        dict(ESTIMATE, n=12.0),
        {"low": ESTIMATE["low"], **ESTIMATE},
        dict(ESTIMATE, extra=None),
    ):
        assert golden_differences("e.json", json.dumps(changed), json.dumps(ESTIMATE)), changed


def test_text_lines_compare_words_exactly_and_floats_to_the_tolerance() -> None:
    expected = "τ 0.9163630929649279 over 12 topics\nrun-a  0.471\n"
    assert golden_differences("t.txt", "τ 0.9163630929649288 over 12 topics\nrun-a  0.471\n", expected) == []
    assert golden_differences("t.txt", "τ 0.9163630929649288 over 13 topics\nrun-a  0.471\n", expected)
    assert golden_differences("t.txt", "τ 0.9163630929649279 over 12 topics\nrun-a  0.472\n", expected)
    assert golden_differences("t.txt", "t 0.9163630929649279 over 12 topics\nrun-a  0.471\n", expected)
    assert golden_differences("t.txt", "τ 0.9163630929649279 over 12 topics\n", expected)


def test_nan_matches_only_nan() -> None:
    assert golden_differences("n.json", '{"x": NaN}', '{"x": NaN}') == []
    assert golden_differences("n.json", '{"x": NaN}', '{"x": 0.5}')
