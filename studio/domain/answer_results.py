"""The leaderboard of generative systems (`studio answers`): the grades a label set gives their answers.

A TypedDict, as in `rows.py`: a plain dict at run time (JSON as it is, key order included).
"""

from typing import TypedDict


class AnswerRow(TypedDict):
    """One generative system: the mean grade of its answers, with a 95% bootstrap interval over topics."""

    system: str
    mean: float  # over the topics it answered
    low: float
    high: float
    topics: int  # topics whose answer the label set grades
