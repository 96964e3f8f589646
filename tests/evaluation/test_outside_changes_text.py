"""What the studio says when other processes wrote to its project."""

from __future__ import annotations

from collections import Counter

from studio.services.evaluation.changes import OutsideChanges


def test_says_how_many_labels_came_in_from_whom() -> None:
    changes = OutsideChanges(Counter({("umbrela-qwen", "judge", "judge run 7"): 12, ("human", "person", "ana"): 1}))
    assert changes.describe() == (
        "12 new labels in umbrela-qwen from judge run 7; 1 new label in human from ana's edits; leaderboard updated"
    )


def test_says_runs_changed_and_something_else_changed() -> None:
    assert OutsideChanges(runs=True).describe() == "runs imported or replaced; leaderboard updated"
    assert OutsideChanges().describe() == "the project changed"
