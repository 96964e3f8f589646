"""Measure names as ir_measures writes them: `nDCG@10`, `P(rel=2)@10`, `AP`, `Compat(p=0.9)`; the
parameters each measure takes are its spec's (metrics/measures.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from studio.metrics.measures import MEASURES, Cutoff

_PATTERN = re.compile(r"^(?P<name>[A-Za-z]+)(?:\((?P<params>[^)]*)\))?(?:@(?P<cutoff>\d+))?$")


@dataclass(frozen=True, slots=True)
class Measure:
    """One measure with its parameters; `str()` gives back the canonical name."""

    name: str
    cutoff: int | None = None
    rel: float = 1.0  # binary relevance: grade >= rel
    p: float = 0.95  # persistence of Compat

    def __str__(self) -> str:
        params = []
        spec = MEASURES.get(self.name)
        if spec is not None and spec.takes_p:
            params.append(f"p={self.p:g}")
        elif self.rel != 1.0:
            params.append(f"rel={self.rel:g}")
        text = self.name + (f"({','.join(params)})" if params else "")
        return text + (f"@{self.cutoff}" if self.cutoff is not None else "")


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
