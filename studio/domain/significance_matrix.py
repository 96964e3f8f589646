"""A significance result laid out for reading: run pairs as a runs × runs grid of decision
classes (the TUI's matrix, the report's figure), and which runs each run significantly beats
(the LaTeX table's superscripts).

Pure Python over the plain dicts `Project.significance` returns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from studio.domain.significance import Significance, SignificantPair

# A letter per class, so that the grid reads without colour; `neither` is the quiet one.
CLASS_LETTERS: dict[str, str] = {"both": "B", "opposite": "O", "ref_only": "R", "qrels_only": "A", "neither": "·"}
# Its colour in the TUI's matrix and the report's figure (white letters read on all but `ref_only`).
CLASS_COLOURS: dict[str, str] = {
    "both": "#2e7d32",
    "opposite": "#c62828",
    "ref_only": "#f9a825",
    "qrels_only": "#6a1b9a",
    "neither": "#d9dde3",
}
# What each class means, in the words a legend uses ("audited" is the compared label set).
CLASS_MEANINGS: dict[str, str] = {
    "both": "significant under both, same run ahead",
    "opposite": "significant under both, other run ahead",
    "ref_only": "significant under the reference only",
    "qrels_only": "significant under the audited set only",
    "neither": "significant under neither",
}


def reference_order(board: Mapping[str, float], runs: Sequence[str]) -> list[str]:
    """`runs` in the reference leaderboard's order: best first, ties (and unscored runs last) by name."""
    return sorted(runs, key=lambda run: (-board[run] if run in board else float("inf"), run))


def pair_key(run_a: str, run_b: str) -> frozenset[str]:
    return frozenset((run_a, run_b))


@dataclass(frozen=True)
class DecisionGrid:
    """The pairs of a significance result with a reference, runs in the reference's order."""

    runs: list[str]
    pairs: dict[frozenset[str], SignificantPair]

    def pair(self, row: int, column: int) -> SignificantPair | None:
        """The pair of the row's and the column's run (None on the diagonal)."""
        if row == column:
            return None
        return self.pairs.get(pair_key(self.runs[row], self.runs[column]))

    def decision(self, row: int, column: int) -> str | None:
        """The decision class of a cell (None on the diagonal, or for a pair not tested)."""
        found = self.pair(row, column)
        return None if found is None else found.get("decision")

    def letter(self, row: int, column: int) -> str:
        decision = self.decision(row, column)
        return "" if decision is None else CLASS_LETTERS[decision]


def decision_grid(result: Significance, board: Mapping[str, float]) -> DecisionGrid:
    """The runs × runs grid of a result computed with a reference (`board`: the reference's
    leaderboard, which orders the runs)."""
    pairs = {pair_key(p["run_a"], p["run_b"]): p for p in result["pairs"]}
    runs = {name for p in result["pairs"] for name in (p["run_a"], p["run_b"])}
    return DecisionGrid(reference_order(board, sorted(runs)), pairs)


def beaten_runs(result: Significance) -> dict[str, set[str]]:
    """For each run, the runs it is significantly better than (the one ahead of a significant pair)."""
    beaten: dict[str, set[str]] = {}
    for pair in result["pairs"]:
        if pair["significant"] and (pair["delta"] or 0.0) > 0:
            beaten.setdefault(pair["run_a"], set()).add(pair["run_b"])
    return beaten
