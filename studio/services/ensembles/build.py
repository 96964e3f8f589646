"""Ensembles: a derived label set that combines other label sets pair by pair.

What an ensemble's labels are, from its members' current grades: the whole set (`combined_labels`)
or one pair (`combined_pair`), the two computed alike so that following one edit pair by pair
gives exactly what combining the whole set afresh gives. Writing and following them is the
derived label sets' business (`studio.services.derived`).
"""

from __future__ import annotations

from studio.domain.errors import UsageError
from studio.domain.models import QrelsRow
from studio.metrics import ensembles as combining
from studio.store import Connection
from studio.store import ensembles as ensemble_store
from studio.store import labels as label_store
from studio.store.evaluation import load_labels

Pair = tuple[str, str]


def describe(members: list[str], how: str) -> str:
    return f"{how} of {', '.join(members)}"


def checked_members(con: Connection, members: list[str], how: str, name: str) -> list[str]:
    """The members of a new ensemble `name`, each once, in the order given; refused when the
    ensemble cannot be made (unknown way or label set, fewer than two, itself among them, a circle)."""
    if how not in combining.HOWS:
        raise UsageError(f"unknown way to combine {how!r} (known: {', '.join(combining.HOWS)})")
    members = list(dict.fromkeys(members))
    if len(members) < 2:
        raise UsageError("an ensemble combines at least two label sets (--qrels A --qrels B)")
    if name in members:
        raise UsageError(f"an ensemble cannot be one of its own members ({name!r})")
    for member in members:
        if label_store.label_set_id(con, member) is None:
            raise UsageError(f"no label set named {member!r} (see `studio list qrels`)")
    if any(name in made for _, made, _ in _closure(con, members)):
        raise UsageError(f"{name!r} is combined by one of its members: ensembles may not go round in a circle")
    return members


def _closure(con: Connection, names: list[str]) -> list[tuple[str, list[str], str]]:
    """The ensembles among `names` and, recursively, among their members."""
    found: dict[str, tuple[str, list[str], str]] = {}
    todo = list(names)
    while todo:
        name = todo.pop()
        made = ensemble_store.ensemble(con, name)
        if made is not None and name not in found:
            found[name] = (name, *made)
            todo.extend(made[0])
    return list(found.values())


def combined_labels(
    con: Connection, members: list[str], how: str
) -> tuple[list[QrelsRow], dict[Pair, ensemble_store.SpreadRow]] | None:
    """Every pair's `how` of the grades the members give it, with the spread of those grades, in
    (qid, docid) order; None when a member no longer exists."""
    member_ids = [label_store.label_set_id(con, member) for member in members]
    if any(set_id is None for set_id in member_ids):
        return None
    combined, spreads = combining.combine_sets([load_labels(con, i) for i in member_ids if i is not None], how)
    rows = [QrelsRow(q, d, combined[q][d]) for q in sorted(combined) for d in sorted(combined[q])]
    return rows, {pair: ensemble_store.SpreadRow(*s) for pair, s in spreads.items()}


def combined_pair(
    con: Connection, members: list[str], how: str, qid: str, docid: str
) -> tuple[float | None, ensemble_store.SpreadRow | None]:
    """One pair's combined grade and spread (None, None when no member labels it)."""
    grades = ensemble_store.pair_grades(con, members, qid, docid)
    if not grades:
        return None, None
    return combining.combine(grades, how), ensemble_store.SpreadRow(*combining.spread(grades))
