"""A team under load: MEMBERS members, each in a process of its own, make EVENTS label edits each
(one every PACE seconds, a brisk assessor's pace) while syncing every SYNC_SECONDS (the TUI's
cadence), all against one PostgreSQL server started for the run (Debian's binaries, a temporary
cluster on a loopback port, as the tests start it). The members run on this machine's cores, so a
small machine measures its own crowding too: the figures say what 20 processes on it gave.

Prints one JSON object:

* `latency_p50_s`, `latency_p95_s`, `latency_max_s`: from one member's edit (the moment `set_label`
  returned) to the moment another member's sync that applied it returned, over every (edit, other
  member) couple; the budget (docs/design.md#6-performance-budgets) is p95 ≤ 2 s with 20 members syncing at once;
* `server_rows_per_s`: the shared events on the server over the seconds from the first edit to the
  last event's arrival there (what the team's load asked of it), and `push_rows_per_s`: one push of
  PUSH_ROWS events in one transaction (what the server takes at most, through the studio's push);
* `events`, `syncs`, `seconds`, and every member's copy checked the same (`same_labels`).

The edits go to disjoint pairs of the sample project's `human` label set (each member its own
share), so that the figures measure sharing, not the conflicts the team's audits are for.

Usage: python -m benchmarks.bench_team [--members 20] [--events 200] [--sync-seconds 1] [--pace 0.5]
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
from studio.store.team import server

COORDINATOR = "coordinator"
PUSH_ROWS = 10_000
LATENCY_BUDGET_S = 2.0


def member_name(number: int) -> str:
    return f"m{number:02d}"


def member_run(
    folder: Path, member: str, number: int, members: int, events: int, sync_seconds: float, pace: float
) -> None:
    """One member's process: edit its share of the pairs at a person's pace, sync on a timer, keep
    syncing until every member's events are here; write what it saw to MEMBER.json."""
    path = folder / f"{member}.duckdb"
    while not (folder / "go").exists():
        time.sleep(0.05)
    made: dict[int, float] = {}
    received: dict[str, float] = {}
    syncs = 0
    with Project.open(path) as project:
        pairs = [(q, d) for q, d, _ in _human_pairs(project)][number::members]
        next_sync = time.time() + sync_seconds
        total = members * events
        deadline = time.time() + 600
        count = 0
        while time.time() < deadline:
            if count < events:
                qid, docid = pairs[count % len(pairs)]
                event = project.set_label("human", qid, docid, float((count + number) % 4), person=member)
                made[int(event["event"])] = time.time()
                count += 1
                time.sleep(pace)
            if time.time() >= next_sync:
                project.sync()
                syncs += 1
                now = time.time()
                for identity in _identities(project, member):
                    received.setdefault(identity, now)
                next_sync = now + sync_seconds
                if count >= events and len(received) >= total - events:
                    break
            elif count >= events:
                time.sleep(0.02)
        seqs = _seqs(project, member)
    (folder / f"{member}.json").write_text(
        json.dumps({"made": {seqs[e]: t for e, t in made.items() if e in seqs}, "received": received, "syncs": syncs})
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
        server.Outgoing(1_000_000 + n, "label", json.dumps({"qrels": "bench"}), "2026-01-01 00:00:00")
        for n in range(PUSH_ROWS)
    ]
    with server.connected(cluster.conninfo(COORDINATOR, database)) as con:
        start = time.perf_counter()
        server.push(con, COORDINATOR, events)
        con.commit()
        return PUSH_ROWS / (time.perf_counter() - start)


def server_span(cluster: Cluster, database: str) -> tuple[int, float]:
    """The members' events on the server and the seconds from the first's arrival to the last's."""
    with server.connected(cluster.conninfo(COORDINATOR, database)) as con:
        row = con.execute(
            "SELECT count(*), extract(epoch FROM max(received_at) - min(received_at))"
            " FROM studio_team.events WHERE member <> %s",
            [COORDINATOR],
        ).fetchone()
    assert row is not None
    return int(row[0]), float(row[1] or 0.0)


def run(members: int, events: int, sync_seconds: float, pace: float, folder: Path) -> dict[str, Any]:
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
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
        processes = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "benchmarks.bench_team",
                    "--member",
                    str(n),
                    "--folder",
                    str(folder),
                    "--members",
                    str(members),
                    "--events",
                    str(events),
                    "--sync-seconds",
                    str(sync_seconds),
                ],
                env=env,
            )
            for n in range(members)
        ]
        time.sleep(1.0)  # every process imported and waiting
        started = time.time()
        (folder / "go").touch()
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
            "members": members,
            "events_per_member": events,
            "sync_seconds": sync_seconds,
            "pace_s": pace,
            "events": on_server,
            "complete": on_server == members * events,  # False: members ran out of time (a crowded machine)
            "deliveries": len(latencies),
            "latency_p50_s": round(statistics.median(latencies), 3),
            "latency_p95_s": round(quantiles[18], 3),
            "latency_max_s": round(max(latencies), 3),
            "latency_budget_s": LATENCY_BUDGET_S,
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
    parser.add_argument("--sync-seconds", type=float, default=1.0)
    parser.add_argument("--pace", type=float, default=0.5, help="Seconds between one member's edits.")
    parser.add_argument("--member", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.member is not None:
        member_run(
            args.folder, member_name(args.member), args.member, args.members, args.events, args.sync_seconds, args.pace
        )
        return
    with tempfile.TemporaryDirectory(prefix="bench-team-") as folder:
        print(json.dumps(run(args.members, args.events, args.sync_seconds, args.pace, Path(folder)), indent=1))


if __name__ == "__main__":
    main()
