"""Splitting an audit's sample among named assessors, a share of it given to two of them.

The pairs given to two assessors (the overlap) are drawn uniformly from the sample with the seed,
so that the agreement measured on them speaks for the whole sample; they go round every couple of
assessors in turn (each couple shares about as many pairs), and the other pairs go one each to
whoever has the fewest so far, so the work is even. Each assessor walks their pairs in the
audit's own random order: one who stops early still leaves a random subsample.
"""

from __future__ import annotations

import itertools

import numpy as np

from studio.domain.audit_results import AssessorShare, Assignment, AuditRecord
from studio.domain.errors import UsageError
from studio.domain.names import check_name
from studio.services.audit.samples import audit_pairs
from studio.store import Connection, Database
from studio.store import assessors as assessor_store
from studio.store import audits as audit_store

WalkedPair = tuple[str, str, str | None]  # qid, docid, stratum


def audit_record(con: Connection, audit: str) -> AuditRecord:
    found = audit_store.audit(con, audit)
    if found is None:
        raise UsageError(f"no audit named {audit!r} (see `studio audit list`)")
    return found


def assign(db: Database, audit: str, assessors: list[str], *, overlap: float, seed: int = 0) -> Assignment:
    """Give each pair of the audit's sample to one assessor, and a share `overlap` of them (rounded
    to whole pairs) to two; earlier assignments of the audit are replaced."""
    check_assessors(assessors, overlap)
    con = db.cursor()
    found = audit_record(con, audit)
    pairs = audit_pairs(con, audit)
    if not pairs:
        raise UsageError(f"audit {audit!r} has no pairs to assign")
    rng = np.random.default_rng(seed)
    shared_count = round(overlap * len(pairs))
    rows, shared = split_pairs([(q, d) for q, d, _ in pairs], assessors, shared_count, rng)
    load = {name: sum(a == name for _, _, a in rows) for name in assessors}
    with db.transaction() as tx:
        assessor_store.replace_assignments(tx, found["audit_id"], rows)
    return Assignment(
        audit=audit,
        assessors=", ".join(assessors),
        pairs=len(pairs),
        shared_pairs=shared_count,
        overlap=shared_count / len(pairs),
        assignments=len(rows),
        seed=seed,
        per_assessor=[
            AssessorShare(
                assessor=name,
                pairs=load[name],
                shared=sum(a == name and (q, d) in shared for q, d, a in rows),
            )
            for name in assessors
        ],
    )


def check_assessors(assessors: list[str], overlap: float) -> None:
    """A UsageError when the names or the overlap cannot split pairs among assessors."""
    for name in assessors:
        check_name(name, "assessor")
    if not assessors:
        raise UsageError("--assessors names at least one assessor")
    repeated = next((n for i, n in enumerate(assessors) if n in assessors[:i]), None)
    if repeated is not None:
        raise UsageError(f"assessor {repeated!r} is named twice")
    if not 0.0 <= overlap <= 1.0:
        raise UsageError(f"--overlap is a share of the pairs, from 0 to 1 (not {overlap:g})")
    if overlap > 0 and len(assessors) < 2:
        raise UsageError("an overlap needs at least two assessors")


def split_pairs(
    pairs: list[tuple[str, str]], assessors: list[str], shared_count: int, rng: np.random.Generator
) -> tuple[list[tuple[str, str, str]], set[tuple[str, str]]]:
    """(qid, docid, assessor) rows giving each pair to one assessor and `shared_count` pairs, drawn
    uniformly, to two (round every couple in turn); and the shared pairs."""
    shared = {int(i) for i in rng.choice(len(pairs), shared_count, replace=False)}
    couples = list(itertools.combinations(assessors, 2))
    couples = [couples[int(i)] for i in rng.permutation(len(couples))]
    load = dict.fromkeys(assessors, 0)
    rows: list[tuple[str, str, str]] = []
    for turn, index in enumerate(sorted(shared)):
        qid, docid = pairs[index]
        for name in couples[turn % len(couples)]:
            rows.append((qid, docid, name))
            load[name] += 1
    tie_break = {name: int(r) for name, r in zip(assessors, rng.permutation(len(assessors)), strict=True)}
    for index in rng.permutation(len(pairs)):
        if int(index) in shared:
            continue
        qid, docid = pairs[int(index)]
        name = min(assessors, key=lambda n: (load[n], tie_break[n]))
        rows.append((qid, docid, name))
        load[name] += 1
    return rows, {pairs[i] for i in shared}


def assessors_of(con: Connection, audit_id: int) -> list[str]:
    """The assessors the audit's pairs are assigned to, by name (none: the audit has one assessor)."""
    return sorted({a for _, _, a in assessor_store.assignments(con, audit_id)})


def assessor_pairs(con: Connection, audit: str, assessor: str) -> list[WalkedPair]:
    """The pairs given to `assessor`, in the audit's order (UsageError when they were given none)."""
    found = audit_record(con, audit)
    given = {(q, d) for q, d, a in assessor_store.assignments(con, found["audit_id"]) if a == assessor}
    if not given:
        named = assessors_of(con, found["audit_id"])
        assigned = ", ".join(named) if named else "nobody yet (studio audit assign)"
        raise UsageError(f"audit {audit!r} gives no pair to {assessor!r}; its assessors: {assigned}")
    return [pair for pair in audit_pairs(con, audit) if (pair[0], pair[1]) in given]
