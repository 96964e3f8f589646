"""Which answers meet in a tournament: pairs sampled so that n systems cost O(n log n) calls a topic.

Bradley–Terry ranks every system from pairwise verdicts as long as the comparison graph is
connected. A random cycle through all n answers makes it connected (each meets two others); random
pairs are added up to n·⌈log₂ n⌉, so each answer meets about 2·log₂ n others. With few systems,
when every pair costs no more than that, every pair is compared.
"""

from __future__ import annotations

import math
import random


def tournament_budget(n: int) -> int:
    """The most pairs a topic of `n` answers is given: n·⌈log₂ n⌉ (0 below two answers)."""
    return n * math.ceil(math.log2(n)) if n > 1 else 0


def tournament_pairs(names: list[str], *, seed: int = 0, qid: str = "") -> list[tuple[str, str]]:
    """Unordered pairs (each once, the names in sorted order), seeded by `seed` and the topic."""
    ordered = sorted(set(names))
    n = len(ordered)
    budget = tournament_budget(n)
    if n * (n - 1) // 2 <= budget:
        return [(ordered[i], ordered[j]) for i in range(n) for j in range(i + 1, n)]
    rng = random.Random(f"{seed}/{qid}/tournament")
    cycle = ordered[:]
    rng.shuffle(cycle)
    chosen = {_pair(cycle[i], cycle[(i + 1) % n]) for i in range(n)}
    while len(chosen) < budget:
        a, b = rng.sample(ordered, 2)
        chosen.add(_pair(a, b))
    return sorted(chosen)


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)
