"""What `--stale` grades after bank edits: the stale cells of a rubric judge's newest run."""

from __future__ import annotations

from dataclasses import dataclass

from studio.banks.stale import Cell, StaleCell, kept_cells, stale_cells
from studio.domain.errors import UsageError
from studio.domain.judging import JudgeConfig
from studio.judges.methods import get_method
from studio.services.judging.config import newest_run
from studio.services.judging.pools import pool_pairs
from studio.services.judging.units import bank_items
from studio.store import Database
from studio.store import judging as judge_store


@dataclass
class StalePlan:
    """What `--stale` does: grade the `stale` cells, carry the `kept` ones over from `previous`."""

    previous: int
    stale: list[StaleCell]
    kept: set[Cell]

    @property
    def to_grade(self) -> set[Cell]:
        return {(c.qid, c.docid, c.item_id) for c in self.stale if c.reason != "deleted"}


def stale_plan(db: Database, config: JudgeConfig, pairs: list[tuple[str, str]] | None = None) -> StalePlan:
    """The stale cells of the label set's newest rubric judge run under the bank's current items."""
    method = get_method(config.method, config.prompt)
    if method.item_kind is None:
        raise UsageError(f"{method.name} does not grade with a test bank: nothing can be stale")
    con = db.cursor()
    newest = newest_run(con, config.name)
    pairs = pool_pairs(db, config) if pairs is None else pairs
    items = bank_items(db, method, config.bank)
    graded = judge_store.graded_cells(con, newest[0])
    stale = stale_cells(graded, pairs, items)
    return StalePlan(newest[0], stale, kept_cells(graded, pairs, items, stale))
