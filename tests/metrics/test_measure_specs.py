"""The table of measures (studio.metrics.measures) is what the parser takes: a measure's name is
accepted with the cutoff, `rel=` and `p=` its spec says it takes, and refused with any other."""

from __future__ import annotations

import pytest

from studio.metrics.measures import MEASURES, Cutoff, MeasureSpec
from studio.metrics.names import parse_measure


def parses(name: str) -> bool:
    try:
        parse_measure(name)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("spec", MEASURES.values(), ids=list(MEASURES))
def test_a_name_takes_the_parameters_its_spec_says(spec: MeasureSpec) -> None:
    cut = "@5" if spec.cutoff is Cutoff.required else ""
    assert parses(f"{spec.name}@5") is spec.takes_cutoff
    assert parses(spec.name) is (spec.cutoff is not Cutoff.required)
    assert parses(f"{spec.name}(rel=2){cut}") is spec.takes_rel
    assert parses(f"{spec.name}(p=0.5){cut}") is spec.takes_p


@pytest.mark.parametrize("spec", MEASURES.values(), ids=list(MEASURES))
def test_every_measure_says_what_it_is_and_where_it_comes_from(spec: MeasureSpec) -> None:
    assert spec.description.endswith(".") and len(spec.description) > 30
    assert spec.citation
    assert MEASURES[spec.name] is spec
