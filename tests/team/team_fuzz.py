"""A sequence fuzzer for the team: random interleavings, from a seed, of what three members and a
coordinator do to their copies and what befalls them — label edits of a few shared pairs (so that
edits cross), undos, audit grades and their taking back, audit imports, campaign grades (local
only), adjudications, syncs, a member killed mid-push (SIGKILL, before or after the server
committed), the server stopped and started again, and a copy restored from a backup (which must
re-join as itself) — then everyone syncs until nothing moves, and every copy must pass `check`,
hold no quarantined event, hold the same labels in every shared label set and the same shared
events as the server.

Each step is one line of `Fuzz.log`, printed when a run fails, so a failing seed can be read and
replayed (`STUDIO_TEAM_FUZZ=SEED:STEPS`).
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cli.cli_helpers import REPO
from team.team_helpers import AUDIT, COORDINATOR, MEMBERS, Team, identities, server_identities

from studio import Project
from studio.domain.errors import TeamRefused

WORKER = Path(__file__).resolve().parent / "team_worker.py"
CAMPAIGN = "walk"
SHARED_SETS = ("human", AUDIT)
PAIRS = 6  # human pairs edited: few, so that members' edits of one pair cross


@dataclass
class Fuzz:
    """One seeded run over a published and joined team."""

    team: Team
    seed: int
    steps: int
    log: list[str] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    server_up: bool = True
    backups: dict[str, Path] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        with Project.open(self.team.path(COORDINATOR)) as project:
            labels = project.engine.evaluator("human").labels
            self.pairs = sorted((q, d) for q, row in labels.items() for d in row.judged)[:PAIRS]
        self.ops: dict[str, tuple[int, Callable[[str], None]]] = {
            "label": (30, self.label),
            "undo": (8, self.undo),
            "grade": (20, self.grade),
            "take back": (4, self.take_back),
            "import": (4, self.audit_import),
            "campaign": (6, self.campaign_grade),
            "adjudicate": (3, self.adjudicate),
            "sync": (20, self.sync),
            "kill": (2, self.kill),
            "server": (2, self.toggle_server),
            "backup": (2, self.backup),
            "restore": (2, self.restore),
        }

    def run(self) -> dict[str, Any]:
        """Every step, the syncs that settle them, and what every copy agrees on."""
        names = list(self.ops)
        weights = [self.ops[n][0] for n in names]
        try:
            for _ in range(self.steps):
                name = self.rng.choices(names, weights)[0]
                role = self.rng.choice([*MEMBERS, COORDINATOR])
                self.ops[name][1](role)
            self.settle()
            return self.converged()
        except BaseException:
            print("\n".join(self.log), file=sys.stderr)
            raise
        finally:
            if not self.server_up:
                self.team.cluster.start()

    def note(self, what: str) -> None:
        self.log.append(what)
        self.counts[what.split(":", 1)[0]] += 1

    def opened(self, role: str) -> Project:
        return Project.open(self.team.path(role))

    # -- what people do --------------------------------------------------------------------------

    def label(self, role: str) -> None:
        qid, docid = self.rng.choice(self.pairs)
        grade = float(self.rng.randrange(4))
        with self.opened(role) as project:
            project.set_label("human", qid, docid, grade)
        self.note(f"label: {role} {qid} {docid} {grade:g}")

    def undo(self, role: str) -> None:
        with self.opened(role) as project:
            done = project.undo()
        self.note(f"undo: {role} {'nothing' if done is None else (done['qrels'], done['qid'], done['docid'])}")

    def grade(self, role: str) -> None:
        if role == COORDINATOR:
            return self.adjudicate(role)
        with self.opened(role) as project:
            session = project.blind_audit(AUDIT)
            session.load()
            current = session.current()
            if current is None:
                return self.note(f"grade: {role} has graded every pair")
            grade = self.rng.randrange(4)
            session.grade(grade)
        self.note(f"grade: {role} {current[0]} {current[1]} {grade}")

    def take_back(self, role: str) -> None:
        if role == COORDINATOR:
            return None
        with self.opened(role) as project:
            session = project.blind_audit(AUDIT)
            session.load()
            done = session.undo()
        self.note(f"take back: {role} {done}")

    def audit_import(self, role: str) -> None:
        if role == COORDINATOR:
            return None
        with self.opened(role) as project:
            left = project.audit_pairs(AUDIT, assessor=role, remaining=True)
            if not left:
                return self.note(f"import: {role} has nothing left")
            chosen = left[: self.rng.randint(1, 2)]
            path = self.team.folder / f"{role}-import.qrels"
            path.write_text("".join(f"{p['qid']} 0 {p['docid']} {self.rng.randrange(4)}\n" for p in chosen))
            project.import_audit(AUDIT, path, assessor=role)
        self.note(f"import: {role} {len(chosen)} grades")

    def campaign_grade(self, role: str) -> None:
        with self.opened(role) as project:
            session = project.walk_campaign(CAMPAIGN, person=role)
            session.load()
            if session.current() is None:
                return self.note(f"campaign: {role} has graded every pair")
            session.grade(float(self.rng.randrange(4)))
        self.note(f"campaign: {role} graded one")

    def adjudicate(self, role: str) -> None:
        with self.opened(COORDINATOR) as project:
            conflicts = project.audit_conflicts(AUDIT)
            if not conflicts:
                return self.note("adjudicate: no conflict")
            chosen = self.rng.choice(conflicts)
            project.adjudicate(AUDIT, chosen["qid"], chosen["docid"], self.rng.randrange(4))
        self.note(f"adjudicate: {chosen['qid']} {chosen['docid']}")

    # -- what befalls them -----------------------------------------------------------------------

    def sync(self, role: str) -> None:
        done = self.synced(role)
        if done is None:
            return None
        assert not done["quarantined"], (role, done["quarantined"])
        moved = "offline" if done["offline"] else f"pushed {done['pushed']} pulled {done['pulled']}"
        self.note(f"sync: {role} {moved}")

    def synced(self, role: str) -> Any:
        """The member's sync; None when it was refused and the copy re-joined (a restored copy),
        once the refused file is closed."""
        try:
            with self.opened(role) as project:
                return project.sync()
        except TeamRefused as refused:
            self.rejoin(role, str(refused))
            return None

    def kill(self, role: str) -> None:
        if not self.server_up:
            return None
        how = self.rng.choice(["die-after-server-commit", "die-before-server-commit"])
        env = {**os.environ, **self.team.cluster.env(), "PYTHONPATH": str(REPO)}
        done = subprocess.run(
            [sys.executable, str(WORKER), str(self.team.path(role)), how],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode == 1 and "another copy of this project synced as" in done.stderr:
            return self.rejoin(role, done.stderr)  # a restored copy's sync is refused before any push
        assert done.returncode in (0, -9), done.stderr  # 0: nothing waited, the push never came
        self.note(f"kill: {role} {how} ({'killed' if done.returncode else 'nothing to push'})")

    def toggle_server(self, role: str) -> None:
        if self.server_up:
            self.team.cluster.stop()
        else:
            self.team.cluster.start()
        self.server_up = not self.server_up
        self.note(f"server: {'up' if self.server_up else 'down'}")

    def backup(self, role: str) -> None:
        target = self.team.folder / f"{role}.backup.duckdb"
        shutil.copy(self.team.path(role), target)  # closed between steps: the file is whole
        self.backups[role] = target
        self.note(f"backup: {role}")

    def restore(self, role: str) -> None:
        if role not in self.backups:
            return None
        shutil.copy(self.backups.pop(role), self.team.path(role))
        self.note(f"restore: {role} from its backup")

    def rejoin(self, role: str, why: str) -> None:
        assert "another copy of this project synced as" in why, why
        path = self.team.path(role)
        for leftover in (path, Path(f"{path}.wal"), Path(f"{path}.lock"), Path(f"{path}.lock.wanted")):
            leftover.unlink(missing_ok=True)
        Project.join_team(path, self.team.conninfo(role))
        self.note(f"rejoin: {role}")

    # -- the end ---------------------------------------------------------------------------------

    def settle(self) -> None:
        """The server up, everyone syncs until a whole round moves nothing."""
        if not self.server_up:
            self.toggle_server(COORDINATOR)
        for _ in range(6):
            moved = 0
            for role in (*MEMBERS, COORDINATOR):
                done = self.synced(role)
                if done is None:
                    moved += 1
                    continue
                assert not done["offline"] and not done["quarantined"], (role, done)
                moved += done["pushed"] + done["pulled"]
            if not moved:
                return
        raise AssertionError("the copies still exchange events after six rounds of syncs")

    def converged(self) -> dict[str, Any]:
        """What every copy must agree on; fails on the first copy that does not."""
        states = {role: _state(self.team.path(role)) for role in (*MEMBERS, COORDINATOR)}
        first = states[COORDINATOR]
        for role, found in states.items():
            assert found["check"], (role, found["problems"])
            assert found["quarantined"] == [], (role, found["quarantined"])
            assert found["labels"] == first["labels"], (role, _difference(found["labels"], first["labels"]))
            assert found["identities"] == first["identities"], role
        assert server_identities(self.team.conninfo(COORDINATOR)) == first["identities"]
        return first


def _state(path: Path) -> dict[str, Any]:
    with Project.open(path) as project:
        report = project.check()
        status = project.team_status()
        labels = {
            name: sorted(
                (q, d, g) for q, row in project.engine.evaluator(name).labels.items() for d, g in row.judged.items()
            )
            for name in SHARED_SETS
        }
        found = {
            "check": report.ok,
            "problems": [c.examples for c in report.checks if not c.ok],
            "quarantined": [] if status is None else status["quarantined"],
            "labels": labels,
        }
    found["identities"] = identities(path)
    return found


def _difference(a: dict[str, list[Any]], b: dict[str, list[Any]]) -> dict[str, Any]:
    return {name: sorted(set(a[name]) ^ set(b[name]))[:6] for name in a}
