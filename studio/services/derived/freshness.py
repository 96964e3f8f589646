"""Are the derived label sets what their sources make of them now? (`studio check`)"""

from __future__ import annotations

from dataclasses import dataclass

from studio.domain.errors import UsageError
from studio.services.derived.fresh import fresh_labels
from studio.services.derived.registry import derivations
from studio.services.evaluation.engine import EvaluationEngine
from studio.store import labels as label_store

Pair = tuple[str, str]


@dataclass(frozen=True)
class StaleSet:
    """A derived label set that differs from a fresh derivation from its sources."""

    name: str
    made_of: str
    differing: int  # pairs whose grade (or presence) differs
    examples: tuple[str, ...]


@dataclass(frozen=True)
class Freshness:
    checked: int  # labels of derived sets compared
    stale: tuple[StaleSet, ...]  # sets that differ from what their sources give
    blocked: dict[str, str]  # sets their sources cannot make now (they keep their last labels): why


def freshness(engine: EvaluationEngine, *, examples: int = 3) -> Freshness:
    """Every derived set compared, label by label, with what its derivation gives now; nothing is written."""
    con = engine.db.cursor()
    checked = 0
    stale: list[StaleSet] = []
    blocked: dict[str, str] = {}
    for derivation in derivations(con):
        set_id = label_store.label_set_id(con, derivation.name)
        if set_id is None:
            continue
        held = {(r.qid, r.docid): r.grade for r in label_store.current_labels(con, set_id)}
        checked += len(held)
        try:
            fresh = fresh_labels(engine, derivation.record)
        except UsageError as error:
            blocked[derivation.name] = f"{derivation.describe()}: {error}"
            continue
        if fresh is None:
            continue  # a source is gone: the set keeps its last labels, as it says in `studio list qrels`
        made = {(r.qid, r.docid): r.grade for r in fresh.rows}
        differing = sorted(pair for pair in held.keys() | made.keys() if held.get(pair) != made.get(pair))
        if differing:
            shown = tuple(
                f"{q} {d}: holds {_grade(held.get((q, d)))}, its sources give {_grade(made.get((q, d)))}"
                for q, d in differing[:examples]
            )
            stale.append(StaleSet(derivation.name, derivation.describe(), len(differing), shown))
    return Freshness(checked, tuple(stale), blocked)


def _grade(grade: float | None) -> str:
    return "no label" if grade is None else f"{grade:g}"
