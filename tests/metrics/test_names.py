"""Measure names as ir_measures writes them: parsed, printed back unchanged, bad ones refused."""

from __future__ import annotations

import pytest

from studio.metrics.names import Measure, parse_measure

CANONICAL = [
    "nDCG@10",
    "nDCG",
    "P@10",
    "P(rel=2)@10",
    "AP",
    "AP@100",
    "AP(rel=2)",
    "R@100",
    "R(rel=2)@100",
    "RR",
    "RR@10",
    "RR(rel=2)",
    "Rprec",
    "Rprec(rel=2)",
    "Judged@10",
    "Compat(p=0.9)",
    "Compat(p=0.95)",
]


@pytest.mark.parametrize("name", CANONICAL)
def test_canonical_name_round_trips(name: str) -> None:
    assert str(parse_measure(name)) == name


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("nDCG@10", Measure("nDCG", cutoff=10)),
        ("P(rel=2)@10", Measure("P", cutoff=10, rel=2.0)),
        ("AP(rel=2)", Measure("AP", rel=2.0)),
        ("R(rel=2)@100", Measure("R", cutoff=100, rel=2.0)),
        ("Rprec", Measure("Rprec")),
        ("Compat(p=0.9)", Measure("Compat", p=0.9)),
    ],
)
def test_parsed_fields(name: str, expected: Measure) -> None:
    assert parse_measure(name) == expected


def test_rel_1_is_the_default_level() -> None:
    assert parse_measure("P(rel=1)@5") == parse_measure("P@5")


@pytest.mark.parametrize(
    "name",
    [
        "P",
        "R",
        "Judged",
        "Rprec@5",
        "Compat@10",
        "Foo@3",
        "Compat(p=2)",
        "Compat(p=0)",
        "P(rel=x)@10",
        "nDCG(rel=2)@10",
        "AP(p=0.9)",
        "P@0",
        "P@-1",
        "nDCG@",
        "",
        "P@10 extra",
    ],
)
def test_bad_names_are_refused_with_value_error(name: str) -> None:
    with pytest.raises(ValueError):
        parse_measure(name)
