"""Measure names as ir_measures writes them: `nDCG@10`, `P(rel=2)@10`, `AP`, `Compat(p=0.9)`, read
into a `Measure` (metrics/measures.py) with the parameters its spec says it takes."""

from __future__ import annotations

import re

from studio.metrics.measures import MEASURES, Cutoff, Measure

# Measure is defined beside the table it reads (metrics/measures.py); the studio imports it from here.
__all__ = ["Measure", "parse_measure"]

_PATTERN = re.compile(r"^(?P<name>[A-Za-z]+)(?:\((?P<params>[^)]*)\))?(?:@(?P<cutoff>\d+))?$")


def parse_measure(text: str) -> Measure:
    """Parse a measure name; a ValueError says what is wrong with it."""
    match = _PATTERN.match(text.strip())
    if not match or match["name"] not in MEASURES:
        known = ", ".join(MEASURES)
        raise ValueError(f"unknown measure {text!r} (known: {known}; e.g. nDCG@10, P(rel=2)@10)")
    name = match["name"]
    spec = MEASURES[name]
    cutoff = int(match["cutoff"]) if match["cutoff"] else None
    if cutoff is not None and not spec.takes_cutoff:
        raise ValueError(f"{text!r}: {name} takes no cutoff")
    if cutoff is not None and cutoff < 1:
        raise ValueError(f"{text!r}: cutoff must be ≥ 1")
    if cutoff is None and spec.cutoff is Cutoff.required:
        raise ValueError(f"{text!r}: {name} needs a cutoff, e.g. {name}@10")
    rel, p = 1.0, 0.95
    for param in filter(None, (part.strip() for part in (match["params"] or "").split(","))):
        key, _, value = param.partition("=")
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"{text!r}: parameter {param!r} needs a number") from None
        if key == "rel" and spec.takes_rel:
            rel = number
        elif key == "p" and spec.takes_p and 0 < number < 1:
            p = number
        else:
            raise ValueError(f"{text!r}: {name} does not take {param!r}")
    return Measure(name, cutoff, rel, p)
