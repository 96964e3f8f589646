"""Assessor time: how long a decision takes in this project, to speak of an audit's size in
assessor-hours as well as pairs."""

from __future__ import annotations

import statistics

from studio.domain.audit_results import AssessorTime
from studio.store import Connection
from studio.store import assessors as assessor_store

# Without a timed decision in the project: about what a TREC-style graded judgment of a passage
# takes a trained assessor.
DEFAULT_SECONDS = 30.0


def seconds_per_decision(con: Connection) -> tuple[float, str]:
    """The median seconds of the project's timed grades (blind audit), or the default; and where
    the figure comes from."""
    timed = assessor_store.decision_seconds(con)
    if not timed:
        return DEFAULT_SECONDS, "a stated default: no timed decision in this project yet"
    return float(statistics.median(timed)), f"the median of {len(timed)} timed decisions in this project"


def assessor_hours(pairs: float, seconds: float) -> float:
    """Hours of assessor time `pairs` decisions take at `seconds` each."""
    return pairs * seconds / 3600.0


def time_summary(con: Connection, pairs: int) -> AssessorTime:
    """`pairs` decisions in assessor-hours, with the seconds per decision used and their source."""
    seconds, source = seconds_per_decision(con)
    return AssessorTime(
        seconds_per_decision=seconds, seconds_from=source, assessor_hours=assessor_hours(pairs, seconds)
    )
