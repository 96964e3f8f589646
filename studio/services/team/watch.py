"""When a team's copy should sync, without asking the server: pushed, not polled.

A copy keeps one connection that `LISTEN`s for the team's events (`store.team.listener`); the
server's trigger notifies it when another member's events arrive. Between those, whether to sync
is asked of this process alone: a notification read from the connection's socket (no statement
sent), or an audited event this process wrote since the last sync (`LabelWrites.generation`). A
copy's own events go up at once; others' are pulled at most every PULL_GAP_SECONDS, so that a
stream of them costs a sync per gap, not one per event.
An idle member therefore costs the server a sleeping backend and nothing else (`benchmarks/
bench_team` measures the transactions the server runs while every member waits).

Whenever the listening connection is (re)made, a sync follows at once: what arrived while it was
down is pulled then. Without the server it is tried again every `RETRY_SECONDS`, and each attempt
is a sync that says offline (the events wait, nothing is lost).
"""

from __future__ import annotations

import contextlib
import time

from studio.domain.errors import StudioError
from studio.domain.team import SyncResult
from studio.services.team import sync as team_sync
from studio.services.writes.label_writes import LabelWrites
from studio.store.team.listener import Listener

RETRY_SECONDS = 2.0
# Others' events are pulled at most this often: the events of a busy team (a grade every few
# seconds from each of 20 members) arrive in a stream, and one sync applies many as cheaply as one.
PULL_GAP_SECONDS = 0.5


class TeamWatch:
    """One copy's view of whether a sync is due; `close` ends its listening connection."""

    def __init__(self, writes: LabelWrites, member: str, conninfo: str) -> None:
        self.writes = writes
        self.member = member
        self.conninfo = conninfo
        self.listener: Listener | None = None
        self.synced_generation = -1  # none yet: the first check syncs
        self.retry_at = 0.0
        self.others_waiting = False  # the server said others' events arrived since the last sync
        self.last_sync = 0.0
        self.failed_until = 0.0

    def due(self) -> bool:
        """Whether a sync should run now (may (re)connect the listener, never runs a statement)."""
        if time.monotonic() < self.failed_until:
            return False  # the last sync failed (the server rejected it, the file was busy): not at once again
        if self.listener is None:
            return self._listen()
        try:
            arrived = self.listener.wait(0.0)
        except StudioError:  # the server went away: the sync says so, the listener is made anew later
            self.close()
            self.retry_at = time.monotonic() + RETRY_SECONDS
            return True
        self.others_waiting = self.others_waiting or bool(arrived - {self.member})
        if self.writes.generation != self.synced_generation:
            return True  # this copy's own events go up at once
        return self.others_waiting and time.monotonic() - self.last_sync >= PULL_GAP_SECONDS

    def _listen(self) -> bool:
        if time.monotonic() < self.retry_at:
            return self.writes.generation != self.synced_generation
        self.retry_at = time.monotonic() + RETRY_SECONDS
        with contextlib.suppress(StudioError):  # offline or refused: the sync that follows says which
            self.listener = Listener(self.conninfo)
        return True

    def sync(self) -> SyncResult:
        """A sync now; the events written before it started count as sent."""
        generation, others = self.writes.generation, self.others_waiting
        self.others_waiting = False  # what arrives from now on waits for the next sync
        try:
            result = team_sync.sync(self.writes)
        except BaseException:
            self.others_waiting = others  # not pulled: a check after RETRY_SECONDS tries again
            self.failed_until = time.monotonic() + RETRY_SECONDS
            raise
        self.synced_generation = generation
        self.last_sync = time.monotonic()
        return result

    def close(self) -> None:
        if self.listener is not None:
            self.listener.close()
            self.listener = None
