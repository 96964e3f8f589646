"""Noticing what other processes wrote while this one kept the project in memory (the TUI while
a judge runs in another terminal): the new label events are applied to the cached leaderboards,
new or replaced runs make them be read again, and people are told what came in."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from studio.services.evaluation.engine import EvaluationEngine
from studio.store import changes as change_store
from studio.store import labels as label_store

# Beyond this many new events a cached evaluator is read again rather than edited event by event.
REPLAY_LIMIT = 20_000


@dataclass(frozen=True)
class OutsideChanges:
    """What came in: new label events by (label set, origin, source), whether runs changed."""

    labels: Counter[tuple[str, str, str | None]] = field(default_factory=Counter)
    runs: bool = False

    def describe(self) -> str:
        parts = [
            f"{count} new label{'s' if count != 1 else ''} in {name} from {_origin(origin, source)}"
            for (name, origin, source), count in self.labels.most_common()
        ]
        if self.runs:
            parts.append("runs imported or replaced")
        said = "; ".join(parts) if parts else "the project changed"
        return f"{said}; leaderboard updated" if parts or self.runs else said


def _origin(origin: str, source: str | None) -> str:
    if origin == "person":
        return f"{source or 'someone'}'s edits"
    if not source:
        return origin
    return source if source.startswith(origin) else f"{origin} {source}"  # "judge run 7", not "judge judge run 7"


class ChangeWatcher:
    """Remembers how far this process has seen the project, and catches the engine up."""

    def __init__(self, engine: EvaluationEngine) -> None:
        self.engine = engine
        con = engine.db.cursor()
        self.events_seen = label_store.event_sequence(con)
        self.runs_seen = change_store.runs_signature(con)

    def poll(self) -> OutsideChanges | None:
        """What others wrote since the last poll (None: nothing, or the file is busy right now).

        Cheap when nothing changed: the file's size and time are compared first. Called with the
        file released; leaves it released.
        """
        db = self.engine.db
        if db.held or (db.signature() == db.signature_at_release and not db.outside_writes):
            return None
        with db.busy(polite=False):  # another thread's use ending meanwhile leaves the file to this one
            found = self._poll_held() if db.try_hold() else None
        db.release()
        return found

    def _poll_held(self) -> OutsideChanges | None:
        db = self.engine.db
        counter = db.change_counter()
        counted = counter != db.changes_seen or db.outside_writes
        if not counted and label_store.event_sequence(db.cursor()) == self.events_seen:
            return None  # the file was rewritten without news (one's own edits, a checkpoint)
        db.changes_seen, db.outside_writes = counter, False
        changes = self._catch_up()
        return changes if counted or changes.labels or changes.runs else None

    def _catch_up(self) -> OutsideChanges:
        engine = self.engine
        con = engine.db.cursor()
        runs = change_store.runs_signature(con)
        sequence = label_store.event_sequence(con)
        events = change_store.events_after(con, self.events_seen)
        engine.forget_followers()  # another process may have made a derived set
        own_batches = engine.own_batches()
        counts: Counter[tuple[str, str, str | None]] = Counter(
            (e.label_set, e.origin, e.source) for e in events if e.batch_id not in own_batches
        )
        if runs != self.runs_seen:
            engine.forget_runs()
        else:
            engine.apply_events(events, sequence, replay_limit=REPLAY_LIMIT)
        self.events_seen = sequence
        changed_runs, self.runs_seen = runs != self.runs_seen, runs
        return OutsideChanges(counts, changed_runs)
