"""A team under load: MEMBERS members, each in a process of its own, make EVENTS label edits each
(one every PACE seconds, a brisk assessor's pace), all against one PostgreSQL server started for
the run (Debian's binaries, a temporary cluster on a loopback port, as the tests start it). The
members run on this machine's cores, so a small machine measures its own crowding too: the
figures say what 20 processes on it gave.

Two ways to know when to sync (`--mode`):

* `push` (the studio's): each member listens on the team's channel and syncs when the server
  notifies it of another member's events, or when it made an edit (`Project.sync_if_due`, asked
  every CHECK_SECONDS of the member itself, never of the server);
* `poll` (how the studio did it before): each member syncs every SYNC_SECONDS whatever happened.

Then every member idles for IDLE_SECONDS, still connected and watching, and the statements their
roles run on the server in that time are counted (the server's statement log): what idle members
cost it.

Prints one JSON object:

* `latency_p50_s`, `latency_p95_s`, `latency_max_s`: from one member's edit (the moment `set_label`
  returned) to the moment another member's sync that applied it returned, over every (edit, other
  member) couple; the budget (docs/design.md#6-performance-budgets) is p95 ≤ 2 s with 20 members syncing at once;
* `idle_statements_per_s`: the statements per second the members ran on the server while every
  one of them idled (counted in the server's statement log), and `idle_syncs`: the syncs they ran
  meanwhile;
* `server_rows_per_s`: the shared events on the server over the seconds from the first edit to the
  last event's arrival there, and `push_rows_per_s`: one push of PUSH_ROWS events in one
  transaction (what the server takes at most, through the studio's push);
* `events`, `syncs`, `seconds`, and every member's copy checked the same (`same_labels`).

The edits go to disjoint pairs of the sample project's `human` label set (each member its own
share), so that the figures measure sharing, not the conflicts the team's audits are for.

Usage: python -m benchmarks.bench_team [--members 20] [--events 200] [--mode push|poll] [--pace 0.5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.pg_cluster import Cluster, start_cluster
from studio.services.project import Project
from studio.store.team import server, server_events

COORDINATOR = "coordinator"
PUSH_ROWS = 10_000
LATENCY_BUDGET_S = 2.0
CHECK_SECONDS = 0.02  # push mode: how often a member asks itself whether a sync is due
IDLE_SECONDS = 10.0


def member_name(number: int) -> str:
    return f"m{number:02d}"


class Member:
    """One member's process: its copy, what it made and when each other member's event arrived."""

    def __init__(self, project: Project, name: str, mode: str, sync_seconds: float) -> None:
        self.project, self.name, self.mode, self.sync_seconds = project, name, mode, sync_seconds
        self.made: dict[int, float] = {}
        self.received: dict[str, float] = {}
        self.syncs = 0
        self.next_sync = time.time() + sync_seconds

    def tick(self) -> None:
        """A sync if one is due (push: asked of the project; poll: by the clock)."""
        if self.mode == "push":
            done = self.project.sync_if_due() is not None
        elif time.time() >= self.next_sync:
            self.project.sync()
            self.next_sync = time.time() + self.sync_seconds
            done = True
        else:
            done = False
        if done:
            self.syncs += 1
            now = time.time()
            for identity in _identities(self.project, self.name):
                self.received.setdefault(identity, now)


def member_run(
    folder: Path, number: int, members: int, events: int, mode: str, sync_seconds: float, pace: float
) -> None:
    """One member's process: edit its share of the pairs at a person's pace, syncing as `mode`
    says, until every member's events are here; then idle, watching, until told to stop; write
    what it saw to MEMBER.json."""
    name = member_name(number)
    while not (folder / "go").exists():
        time.sleep(0.05)
    with Project.open(folder / f"{name}.duckdb") as project:
        member = Member(project, name, mode, sync_seconds)
        pairs = [(q, d) for q, d, _ in _human_pairs(project)][number::members]
        total = members * events
        deadline = time.time() + 600
        next_edit = time.time()
        count = 0
        while time.time() < deadline and (count < events or len(member.received) < total - events):
            if count < events and time.time() >= next_edit:
                qid, docid = pairs[count % len(pairs)]
                event = project.set_label("human", qid, docid, float((count + number) % 4), person=name)
                member.made[int(event["event"])] = time.time()
                count += 1
                next_edit = time.time() + pace
            member.tick()
            time.sleep(CHECK_SECONDS)
        (folder / f"{name}.done").touch()
        busy_syncs = member.syncs
        while not (folder / "stop").exists():  # idle: watching, as an open studio does
            member.tick()
            time.sleep(CHECK_SECONDS)
        seqs = _seqs(project, name)
    (folder / f"{name}.json").write_text(
        json.dumps(
            {
                "made": {seqs[e]: t for e, t in member.made.items() if e in seqs},
                "received": member.received,
                "syncs": busy_syncs,
                "idle_syncs": member.syncs - busy_syncs,
            }
        )
    )


def _human_pairs(project: Project) -> list[tuple[str, str, float]]:
    rows = project.db.cursor().execute(
        "SELECT qid, docid, grade FROM labels JOIN label_sets USING (label_set_id) WHERE name = 'human'"
        " ORDER BY qid, docid"
    )
    return [(str(q), str(d), float(g)) for q, d, g in rows.fetchall()]


def _identities(project: Project, member: str) -> list[str]:
    rows = project.db.cursor().execute("SELECT member, seq FROM team_events WHERE member <> ?", [member])
    return [f"{m}/{s}" for m, s in rows.fetchall()]


def _seqs(project: Project, member: str) -> dict[int, str]:
    rows = project.db.cursor().execute(
        "SELECT label_event, seq FROM team_events WHERE member = ? AND label_event IS NOT NULL", [member]
    )
    return {int(e): f"{member}/{s}" for e, s in rows.fetchall()}


def labels_of(path: Path) -> list[tuple[str, str, float]]:
    with Project.open(path) as project:
        return _human_pairs(project)


def push_rate(cluster: Cluster, database: str) -> float:
    """Rows per second of one push of PUSH_ROWS events (the coordinator's own, numbered past its others)."""
    events = [
        server_events.Outgoing(1_000_000 + n, "label", json.dumps({"qrels": "bench"}), "2026-01-01 00:00:00")
        for n in range(PUSH_ROWS)
    ]
    with server.connected(cluster.conninfo(COORDINATOR, database)) as con:
        start = time.perf_counter()
        server_events.push(con, COORDINATOR, events)
        con.commit()
        return PUSH_ROWS / (time.perf_counter() - start)


def server_span(cluster: Cluster, database: str) -> tuple[int, float]:
    """The members' events on the server and the seconds from the first's arrival to the last's."""
    import psycopg

    with psycopg.connect(cluster.conninfo(COORDINATOR, database)) as con:
        row = con.execute(
            "SELECT count(*), extract(epoch FROM max(received_at) - min(received_at))"
            " FROM studio_team.events WHERE member <> %s",
            [COORDINATOR],
        ).fetchone()
    assert row is not None
    return int(row[0]), float(row[1] or 0.0)


def log_statements(cluster: Cluster) -> None:
    """Have the server log every statement with its role, so that what idle members ask of it can
    be counted (a transaction counter would also count statements of the busy phase flushed late)."""
    cluster.admin_sql(
        "ALTER SYSTEM SET log_statement = 'all'", "ALTER SYSTEM SET log_line_prefix = '%u|'", "SELECT pg_reload_conf()"
    )


def members_statements(cluster: Cluster, start: int, end: int) -> int:
    """Statements the members' roles ran, logged between two offsets of the server's log."""
    with (cluster.folder / "log").open("rb") as log:
        log.seek(start)
        lines = log.read(end - start).decode("utf-8", "replace").splitlines()
    return sum("statement:" in line and line.split("|", 1)[0] not in (COORDINATOR, "postgres", "") for line in lines)


def idle_cost(cluster: Cluster, folder: Path, names: list[str]) -> float:
    """Statements per second the members ask of the server while every one of them idles."""
    while not all((folder / f"{name}.done").exists() for name in names):
        time.sleep(0.1)
    time.sleep(2.0)  # the last syncs settle
    log = cluster.folder / "log"
    before = log.stat().st_size
    time.sleep(IDLE_SECONDS)
    after = log.stat().st_size
    (folder / "stop").touch()
    return members_statements(cluster, before, after) / IDLE_SECONDS


def start_members(
    folder: Path, members: int, events: int, mode: str, sync_seconds: float, pace: float
) -> list[subprocess.Popen[bytes]]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    arguments = ["--folder", str(folder), "--members", str(members), "--events", str(events), "--mode", mode]
    arguments += ["--sync-seconds", str(sync_seconds), "--pace", str(pace)]
    return [
        subprocess.Popen([sys.executable, "-m", "benchmarks.bench_team", "--member", str(n), *arguments], env=env)
        for n in range(members)
    ]


def run(members: int, events: int, mode: str, sync_seconds: float, pace: float, folder: Path) -> dict[str, Any]:
    names = [member_name(n) for n in range(members)]
    cluster = start_cluster(COORDINATOR, names)
    os.environ.update(cluster.env())
    try:
        base = folder / f"{COORDINATOR}.duckdb"
        Project.sample(base).close()
        with Project.open(base) as project:
            project.publish_team(cluster.conninfo(COORDINATOR), names)
        for name in names:
            Project.join_team(folder / f"{name}.duckdb", cluster.conninfo(name))
        log_statements(cluster)
        processes = start_members(folder, members, events, mode, sync_seconds, pace)
        time.sleep(1.0)  # every process imported and waiting
        started = time.time()
        (folder / "go").touch()
        idle = idle_cost(cluster, folder, names)
        for process in processes:
            process.wait(timeout=900)
        seconds = time.time() - started
        seen = [json.loads((folder / f"{name}.json").read_text()) for name in names]
        latencies = [
            got[identity] - t
            for mine in seen
            for identity, t in mine["made"].items()
            for got in (s["received"] for s in seen)
            if identity in got
        ]
        on_server, span = server_span(cluster, cluster.database)
        first = labels_of(folder / f"{names[0]}.duckdb")
        same = all(labels_of(folder / f"{name}.duckdb") == first for name in names[1:])
        quantiles = statistics.quantiles(latencies, n=20)
        return {
            "mode": mode,
            "members": members,
            "events_per_member": events,
            "sync_seconds": sync_seconds if mode == "poll" else None,
            "pace_s": pace,
            "events": on_server,
            "complete": on_server == members * events,  # False: members ran out of time (a crowded machine)
            "deliveries": len(latencies),
            "latency_p50_s": round(statistics.median(latencies), 3),
            "latency_p95_s": round(quantiles[18], 3),
            "latency_max_s": round(max(latencies), 3),
            "latency_budget_s": LATENCY_BUDGET_S,
            "idle_seconds": IDLE_SECONDS,
            "idle_statements_per_s": round(idle, 2),
            "idle_syncs": sum(s["idle_syncs"] for s in seen),
            "server_rows_per_s": round(on_server / span, 1) if span else None,
            "push_rows_per_s": round(push_rate(cluster, cluster.database), 1),
            "syncs": sum(s["syncs"] for s in seen),
            "seconds": round(seconds, 1),
            "same_labels": same,
        }
    finally:
        cluster.remove()


def main() -> None:
    parser = argparse.ArgumentParser(description="A team of members syncing through PostgreSQL at once.")
    parser.add_argument("--members", type=int, default=20)
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--mode", choices=("push", "poll"), default="push")
    parser.add_argument("--sync-seconds", type=float, default=1.0, help="poll mode: seconds between syncs")
    parser.add_argument("--pace", type=float, default=0.5, help="Seconds between one member's edits.")
    parser.add_argument("--member", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.member is not None:
        member_run(args.folder, args.member, args.members, args.events, args.mode, args.sync_seconds, args.pace)
        return
    with tempfile.TemporaryDirectory(prefix="bench-team-") as folder:
        result = run(args.members, args.events, args.mode, args.sync_seconds, args.pace, Path(folder))
        print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
