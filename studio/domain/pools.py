"""The pool a judge labels, as `--pool` names it: `qrels:NAME`, `runs:K`, `holes:K` or `responses`.

Read strictly: a pool that names no label set (`qrels:`), a depth written otherwise than in ASCII
digits (`runs: 5`, `runs:1_0`, `runs:٥`) or beyond a 64-bit integer, and an argument given to
`responses` are refused with what is wrong, never read as a default or cut to fit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from studio.domain.errors import UsageError
from studio.domain.names import name_problem
from studio.domain.numbers import INTEGER_LIMITS, INTEGER_PATTERN

POOL_FORMS = "qrels:NAME, runs:K, holes:K or responses"
_INTEGER = re.compile(INTEGER_PATTERN)


class PoolKind(StrEnum):
    qrels = "qrels"  # the pairs a label set labels
    runs = "runs"  # every run's top K
    holes = "holes"  # every run's top K that the reference label set leaves unlabelled
    responses = "responses"  # the generated answers


@dataclass(frozen=True)
class Pool:
    """A judge's pool: its kind and the label set (qrels) or depth (runs, holes) it names."""

    kind: PoolKind
    label_set: str | None = None
    depth: int | None = None


def parse_pool(text: str) -> Pool:
    """The pool `text` names; a `UsageError` saying what is wrong otherwise."""
    kind, colon, argument = text.partition(":")
    if kind == PoolKind.responses:
        if colon:
            raise UsageError(f"pool {text!r}: responses takes nothing after it (the pool is every answer)")
        return Pool(PoolKind.responses)
    if kind == PoolKind.qrels:
        if not argument:
            raise UsageError(f"pool {text!r}: name the label set whose pairs are judged, e.g. qrels:human")
        problem = name_problem(argument)
        if problem is not None:
            raise UsageError(f"pool {text!r}: label set name {argument!r} {problem}")
        return Pool(PoolKind.qrels, label_set=argument)
    if kind in (PoolKind.runs, PoolKind.holes):
        example = f"e.g. {kind}:10"
        if not argument:
            raise UsageError(f"pool {text!r}: give a depth, {example}")
        if _INTEGER.fullmatch(argument) is None:
            raise UsageError(f"pool {text!r}: the depth {argument!r} is not a whole number in ASCII digits ({example})")
        depth = int(argument)
        if depth < 1:
            raise UsageError(f"pool {text!r}: the depth is how many of each run's top documents, at least 1")
        if depth > INTEGER_LIMITS[1]:
            raise UsageError(f"pool {text!r}: the depth {argument} is beyond a 64-bit integer")
        return Pool(PoolKind(kind), depth=depth)
    raise UsageError(f"unknown pool {text!r} ({POOL_FORMS})")
