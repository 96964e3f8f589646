"""What the team tests do on a copy of one team's project and compare between copies."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
from pg_roles import PG_COORDINATOR, PG_MEMBERS, PG_OUTSIDER

from benchmarks.pg_cluster import Cluster
from studio import Project

COORDINATOR = PG_COORDINATOR
MEMBERS = PG_MEMBERS
OUTSIDER = PG_OUTSIDER  # a role of the server, not of the team
AUDIT = "gold"


@dataclass
class Team:
    """A database of its own on the session's server, and how each role reaches it."""

    cluster: Cluster
    database: str
    folder: Path

    def conninfo(self, role: str) -> str:
        return self.cluster.conninfo(role, self.database)

    def path(self, role: str) -> Path:
        return self.folder / f"{role}.duckdb"


def grade_some(path: Path, count: int, *, start: int = 0) -> int:
    """The copy's member grades up to `count` of their audit pairs (grades cycle 0–3); how many."""
    with Project.open(path) as project:
        session = project.blind_audit("gold")
        session.load()
        done = 0
        while done < count and session.current() is not None:
            session.grade((start + done) % 4)
            done += 1
        return done


def state(path: Path) -> dict[str, Any]:
    """What must be the same on every copy once all have synced."""
    with Project.open(path) as project:
        agreement = project.audit_agreement("gold")
        found: dict[str, Any] = {
            "labels": sorted(
                (qid, docid, grade)
                for qid, row in project.engine.evaluator("gold").labels.items()
                for docid, grade in row.judged.items()
            ),
            "leaderboard": project.leaderboard("gold", "nDCG@10"),
            "kappa": [(c["assessor_a"], c["assessor_b"], c["pairs"], c["kappa"]) for c in agreement["couples"]],
            "alpha": agreement["krippendorff_alpha"],
            "conflicts": [(c["qid"], c["docid"]) for c in project.audit_conflicts("gold")],
            "check": project.check().ok,
        }
    found["identities"] = identities(path)
    return found


def identities(path: Path) -> list[tuple[str, int]]:
    """The global identity of every shared event the copy holds."""
    with duckdb.connect(str(path), read_only=True) as con:
        rows = con.execute("SELECT member, seq FROM team_events ORDER BY member, seq").fetchall()
    return [(str(m), int(s)) for m, s in rows]


def server_identities(conninfo: str) -> list[tuple[str, int]]:
    import psycopg

    with psycopg.connect(conninfo) as con:
        rows = con.execute("SELECT member, seq FROM studio_team.events ORDER BY member, seq").fetchall()
    return [(str(m), int(s)) for m, s in rows]


def append_raw(team: Team, role: str, seq: int, kind: str, payload: str, made_at: str = "2026-03-01 10:00:00") -> None:
    """An event appended as `role` straight on the server, as row-level security allows a member to
    (not through the studio, so no gate of the sender's stands in its way)."""
    import psycopg

    with psycopg.connect(team.conninfo(role)) as con:
        con.execute(
            "INSERT INTO studio_team.events (member, seq, kind, payload, made_at)"
            " VALUES (current_user, %s, %s, %s::jsonb, %s::timestamp)",
            [seq, kind, payload, made_at],
        )


def coordinator_sql(team: Team, *statements: str) -> None:
    """Statements run by the coordinator (the schema's owner) on the team's database."""
    import psycopg

    with psycopg.connect(team.conninfo(COORDINATOR)) as con:
        for statement in statements:
            con.execute(statement.encode())


def grade_of(team: Team, role: str, qid: str, docid: str, qrels: str = "human") -> float | None:
    with Project.open(team.path(role)) as project:
        return project.engine.evaluator(qrels).labels.get(qid, _NO_LABELS).judged.get(docid)


class _NoLabels:
    judged: dict[str, float] = {}


_NO_LABELS = _NoLabels()


def human_pairs(team: Team, count: int) -> list[tuple[str, str]]:
    """The first `count` pairs of the `human` label set, by qid and docid."""
    with Project.open(team.path(COORDINATOR)) as project:
        labels = project.engine.evaluator("human").labels
        return sorted((qid, docid) for qid, row in labels.items() for docid in row.judged)[:count]


def audit_pair_of(team: Team, member: str) -> tuple[str, str]:
    """A pair the audit gives `member`."""
    with Project.open(team.path(member)) as project:
        pair = project.audit_pairs(AUDIT, assessor=member)[0]
    return pair["qid"], pair["docid"]
