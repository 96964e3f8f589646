"""Ensembles: a derived label set that combines other label sets pair by pair.

An ensemble follows its members: a member judged or imported again recomputes it whole
(`refresh_ensembles`), an audited edit of a member recomputes that one pair in the edit's own
transaction (`follow_edit`). A person's edit of the ensemble itself lasts until a member changes.
"""

from __future__ import annotations

from typing import Any

from studio.domain.errors import UsageError
from studio.domain.models import QrelsRow
from studio.metrics import ensembles as combining
from studio.store import Connection, Database, new_batch
from studio.store import ensembles as ensemble_store
from studio.store import labels as label_store
from studio.store.evaluation import load_labels


def _source(members: list[str], how: str) -> str:
    return f"{how} of {', '.join(members)}"


def build_ensemble(db: Database, members: list[str], how: str, name: str, *, replace: bool = False) -> dict[str, Any]:
    """Write label set `name`: each pair's `how` (majority, mean, median) of the grades the members
    give it, with the spread of those grades."""
    if how not in combining.HOWS:
        raise UsageError(f"unknown way to combine {how!r} (known: {', '.join(combining.HOWS)})")
    members = list(dict.fromkeys(members))
    if len(members) < 2:
        raise UsageError("an ensemble combines at least two label sets (--qrels A --qrels B)")
    if name in members:
        raise UsageError(f"an ensemble cannot be one of its own members ({name!r})")
    con = db.cursor()
    member_ids = []
    for member in members:
        found = label_store.label_set_id(con, member)
        if found is None:
            raise UsageError(f"no label set named {member!r} (see `studio list qrels`)")
        member_ids.append(found)
    existing = label_store.label_set_id(con, name)
    if existing is not None and not replace:
        raise UsageError(f"label set {name!r} already exists (use --replace)")
    if existing is not None and any(name in ms for _, ms, _ in _closure(con, members)):
        raise UsageError(f"{name!r} is combined by one of its members: ensembles may not go round in a circle")
    combined, spreads = combining.combine_sets([load_labels(con, i) for i in member_ids], how)
    rows = [QrelsRow(q, d, combined[q][d]) for q in sorted(combined) for d in sorted(combined[q])]

    def record(tx: Connection, set_id: int) -> None:
        ensemble_store.record_ensemble(tx, set_id, members, how)
        ensemble_store.replace_spreads(tx, set_id, {k: ensemble_store.SpreadRow(*s) for k, s in spreads.items()})

    events = label_store.write_derived_set(
        db,
        name,
        existing,
        rows,
        command="ensemble",
        batch_source=_source(members, how),
        source=_source(members, how),
        described=f"ensemble: {_source(members, how)}",
        record=record,
    )
    disagreeing = sum(1 for s in spreads.values() if s.high > s.low)
    return {
        "label_set": name,
        "how": how,
        "members": members,
        "topics": len(combined),
        "labels": len(rows),
        "events": events,
        "pairs_members_disagree": disagreeing,
    }


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


def refresh_ensembles(db: Database, member: str, seen: frozenset[str] = frozenset()) -> list[str]:
    """Recompute every ensemble that combines `member` (and the ensembles that combine those);
    their names."""
    refreshed: list[str] = []
    for name, members, how in ensemble_store.ensembles_with_member(db.cursor(), member):
        if name in seen or any(label_store.label_set_id(db.cursor(), m) is None for m in members):
            continue  # a member was deleted: the ensemble keeps its last labels
        build_ensemble(db, members, how, name, replace=True)
        refreshed += [name, *refresh_ensembles(db, name, seen | {name})]
    return refreshed


def follow_edit(tx: Connection, member: str, qid: str, docid: str, seen: frozenset[str] = frozenset()) -> list[str]:
    """Inside the transaction of an edit of `member`'s (qid, docid): the same pair of every
    ensemble combining it, combined again; the ensembles whose label changed."""
    changed: list[str] = []
    for name, members, how in ensemble_store.ensembles_with_member(tx, member):
        set_id = label_store.label_set_id(tx, name)
        if set_id is None or name in seen:
            continue
        grades = ensemble_store.pair_grades(tx, members, qid, docid)
        grade = combining.combine(grades, how) if grades else None
        ensemble_store.set_spread(
            tx, set_id, qid, docid, ensemble_store.SpreadRow(*combining.spread(grades)) if grades else None
        )
        if label_store.current_grade(tx, set_id, qid, docid) == grade:
            continue
        batch = new_batch(tx, "ensemble", f"{_source(members, how)} after an edit of {member}")
        label_store.append_label_event(
            tx, set_id, qid, docid, grade, origin="derived", source=_source(members, how), batch_id=batch
        )
        changed += [name, *follow_edit(tx, name, qid, docid, seen | {name})]
    return changed
