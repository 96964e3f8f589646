"""How hard the property tests look: three hypothesis profiles, chosen with HYPOTHESIS_PROFILE.

* `ci` (the default, what `make check` runs): each test draws the examples its decorator asks
  for, from a fixed seed (`derandomize`): the same examples every run, so a run fails only when
  the code changed, never because a slow machine or a lucky draw did.
* `fast` (`make test-fast`, the edit loop): a tenth of them (at least one), fixed too.
* `thorough` (on demand: `HYPOTHESIS_PROFILE=thorough .venv/bin/python -m pytest tests/metrics`):
  ten times as many, from a fresh random seed each run, for hunting what the fixed draws miss.

No profile has a deadline or fails a test for drawing slowly: timings never gate a test. A test
sets its count with `examples(n)`, so that the profile scales it (a bare `max_examples=n` would
not follow the profile).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
SCALE = {"fast": 0.1, "ci": 1.0, "thorough": 10.0}
DEFAULT_EXAMPLES = 100  # a test that sets no count (hypothesis' own default)


def examples(n: int) -> int:
    """The examples a test that asks for `n` draws under the profile in force."""
    if PROFILE not in SCALE:
        raise ValueError(f"HYPOTHESIS_PROFILE={PROFILE!r}: one of {', '.join(SCALE)}")
    return max(1, round(n * SCALE[PROFILE]))


def load_profile() -> None:
    """Register the three profiles and load the one HYPOTHESIS_PROFILE names (default `ci`)."""
    for name, fixed in (("fast", True), ("ci", True), ("thorough", False)):
        settings.register_profile(
            name,
            max_examples=_scaled(name),
            derandomize=fixed,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
            print_blob=True,
        )
    examples(1)  # refuses an unknown profile's name
    settings.load_profile(PROFILE)


def _scaled(name: str) -> int:
    return max(1, round(DEFAULT_EXAMPLES * SCALE[name]))
