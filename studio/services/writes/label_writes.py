"""`LabelWrites`: the one door through which labels change.

A person's edit (`studio label`, a Review decision, a blind-audit grade) and its undo are written
here as one audited label event; a bulk write made elsewhere (an import with --replace, a judge
run, a re-parse, gold labels of an audit, a bank edit) tells it what it rewrote. Either way the
engine's cached leaderboards are brought up to date and every derived label set made from what
changed (ensembles, calibrations, bank scores) follows, through the one follow mechanism of
`studio.services.derived.follow`: for an edit, inside the edit's own transaction, so that a crash
never leaves a derived set behind its sources.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from studio.domain.errors import UsageError
from studio.domain.rows import LabelEvent, StoredEvent
from studio.services.derived.follow import Changes, Followed, follow
from studio.services.derived.registry import bank_items, derivations, item_grades_of, labels_of, reached
from studio.services.evaluation.engine import EvaluationEngine
from studio.services.writes.owners import owned_by
from studio.store import Connection
from studio.store import labels as label_store

# What a caller writes with an edit, in the edit's transaction: (transaction, the new event).
WithEdit = Callable[[Connection, StoredEvent], object]


@dataclass(frozen=True)
class _Edit:
    """One audited event to write: a person's edit (command label, origin person) or an undo."""

    name: str
    qid: str
    docid: str
    grade: float | None
    command: str
    origin: str
    person: str | None
    note: str | None = None
    undoes: int | None = None


class LabelWrites:
    """Every change to the labels of one open project."""

    def __init__(self, engine: EvaluationEngine) -> None:
        self.engine = engine
        self.bank_followed = Followed()  # what the last bank edit did to the bank scores made with it
        # Audited events written by this process, counted: a team's copy syncs when it changes,
        # without asking the file or the server whether there is something to send. The events a
        # sync applies for others (on its own thread, `applying_pulled`) are not this copy's to send.
        self.generation = 0
        self._pulling = threading.local()

    # -- a person's edits --------------------------------------------------------------------------

    def edit(
        self,
        qrels: str,
        qid: str,
        docid: str,
        grade: float | None,
        *,
        note: str | None = None,
        person: str | None = None,
        also: WithEdit | None = None,
    ) -> LabelEvent:
        """One audited edit (None removes the label); `also` writes what belongs with it (a review
        decision, an audit's record) in the same transaction."""
        if qrels in self.engine.derived_sets():
            made = next(d for d in derivations(self.engine.db.cursor()) if d.name == qrels)
            raise UsageError(f"{qrels} is derived ({made.describe()}): its labels follow its sources; edit those")
        return self._write(_Edit(qrels, qid, docid, grade, "label", "person", person, note), also)

    def undo(self, qrels: str | None = None, *, person: str | None = None) -> LabelEvent | None:
        """Revert the newest person edit not yet undone (of one label set, or of any that takes a
        person's write: an audit's, a campaign's or a derived set's grades are taken back through
        their owner, never around it); None when there is none."""
        con = self.engine.db.cursor()
        owned = self.engine.owned_sets()
        if qrels is not None and qrels in owned:
            raise UsageError(owned_by(con, qrels) or f"{qrels} takes no undo of its own")
        set_id = self.engine.label_set_id(qrels) if qrels is not None else None
        except_sets = [found for name in owned if (found := label_store.label_set_id(con, name)) is not None]
        return self._revert(label_store.last_undoable_event(con, set_id, except_sets=except_sets), person, None)

    def revert(self, event_id: int, *, person: str | None = None, also: WithEdit | None = None) -> LabelEvent | None:
        """Undo one particular person edit (None when it does not exist or was undone already)."""
        return self._revert(label_store.undoable_event(self.engine.db.cursor(), event_id), person, also)

    def _revert(
        self, found: label_store.UndoableEvent | None, person: str | None, also: WithEdit | None
    ) -> LabelEvent | None:
        if found is None:
            return None
        event_id, set_id, qid, docid, previous = found
        info = label_store.label_set_info(self.engine.db.cursor(), set_id)
        assert info is not None
        return self._write(_Edit(info.name, qid, docid, previous, "undo", "undo", person, undoes=event_id), also)

    def _write(self, edit: _Edit, also: WithEdit | None) -> LabelEvent:
        # One writer at a time in this process: the TUI's workers and its UI thread share the engine.
        with self.engine.lock:
            event, followed = self._append(edit, also)
            if not getattr(self._pulling, "active", False):
                self.generation += 1
        written = LabelEvent(
            qrels=edit.name,
            event=event["event"],
            qid=event["qid"],
            docid=event["docid"],
            grade=event["grade"],
            previous=event["previous"],
            origin=event["origin"],
            source=event["source"],
            note=event["note"],
            undoes=event["undoes"],
            time=event["time"],
        )
        if followed.blocked:
            written["derived_blocked"] = followed.blocked
        return written

    def _append(self, edit: _Edit, also: WithEdit | None) -> tuple[StoredEvent, Followed]:
        name, qid, docid, grade, command, person = (
            edit.name,
            edit.qid,
            edit.docid,
            edit.grade,
            edit.command,
            edit.person,
        )
        engine = self.engine
        set_id = engine.label_set_id(name)
        known = engine.known_grade(name, qid, docid)
        followers = name in engine.followed()
        if known is not None and also is None and not followers and edit.note is None and edit.undoes is None:
            plain = self._append_plain(edit, set_id, known)
            if plain is not None:
                return plain, Followed()
        followed = Followed()
        try:
            with engine.db.transaction(counted=False) as tx:  # its label events tell the other processes
                batch = engine.batch(tx, command, person)
                source_id = engine.event_source(tx, edit.origin, person)
                event = label_store.append_label_event(
                    tx,
                    set_id,
                    qid,
                    docid,
                    grade,
                    origin=edit.origin,
                    source=person,
                    batch_id=batch,
                    note=edit.note,
                    undoes=edit.undoes,
                    known=known,
                    source_id=source_id,
                )
                if also is not None:
                    also(tx, event)
                # The cached leaderboards take the edit before the followers are derived from them.
                engine.applied(name, qid, docid, grade, known, int(str(event["event"])))
                if followers:
                    followed = follow(engine, tx, {labels_of(name): frozenset({(qid, docid)})})
        except BaseException:
            engine.forget_labels(name)  # the cache took an edit that was rolled back
            raise
        engine.keep_batch(command, person, batch)
        engine.keep_event_source(edit.origin, person, source_id)
        return event, followed

    def _append_plain(self, edit: _Edit, set_id: int, known: label_store.KnownGrade) -> StoredEvent | None:
        """The live edit's fast path: an edit nothing follows, without a note, whose replaced grade
        the cache knows, in one statement of its own; None when it cannot take it (the first edit
        of its batch or source, or another event came since the cache's belief: nothing written)."""
        engine = self.engine
        batch = engine.kept_batch(edit.command, edit.person)
        source_id = engine.kept_event_source(edit.origin, edit.person)
        if batch is None or source_id is None:
            return None
        with engine.db.statement() as con:
            event = label_store.append_if_current(
                con,
                set_id,
                edit.qid,
                edit.docid,
                edit.grade,
                known=known,
                origin=edit.origin,
                source=edit.person,
                source_id=source_id,
                batch_id=batch,
            )
        if event is not None:  # committed: the cached leaderboards take it
            engine.applied(edit.name, edit.qid, edit.docid, edit.grade, known, event["event"])
        return event

    def pulling(self) -> bool:
        """Is this thread applying others' events (`applying_pulled`)?"""
        return bool(getattr(self._pulling, "active", False))

    @contextmanager
    def applying_pulled(self) -> Iterator[None]:
        """This thread's edits meanwhile apply others' events: they leave `generation` as it is."""
        self._pulling.active = True
        try:
            yield
        finally:
            self._pulling.active = False

    # -- writes made elsewhere -------------------------------------------------------------------

    def written(
        self, names: Iterable[str] = (), *, item_grades: Iterable[str] = (), banks: Iterable[str] = ()
    ) -> Followed:
        """Label sets (their grades, their item grades) or banks rewritten by a committed write: the
        cached leaderboards forgotten, the derived sets made from them derived afresh in one
        transaction."""
        names = list(names)
        with self.engine.lock:
            return self._written(names, item_grades, banks)

    def _written(self, names: list[str], item_grades: Iterable[str], banks: Iterable[str]) -> Followed:
        for name in names:
            self.engine.forget_labels(name)
        item_grades, banks = list(item_grades), list(banks)
        if not item_grades and not banks and not set(names) & self.engine.followed():
            return Followed()  # nothing is made from what changed: no derivation to read
        changes: Changes = {
            **{labels_of(n): None for n in names},
            **{item_grades_of(n): None for n in item_grades},
            **{bank_items(b): None for b in banks},
        }
        if not reached(derivations(self.engine.db.cursor()), changes):
            return Followed()
        with self.engine.db.transaction() as tx:
            return follow(self.engine, tx, changes)

    def refresh_all(self) -> Followed:
        """Every derived set derived afresh from its sources, in dependency order."""
        every = derivations(self.engine.db.cursor())
        if not every:
            return Followed()
        with self.engine.lock, self.engine.db.transaction() as tx:
            return follow(self.engine, tx, {source: None for d in every for source in d.inputs})

    @contextmanager
    def bank_edit(self, bank: str) -> Iterator[Connection]:
        """A transaction that edits `bank`'s items: the bank scores made with it follow before it
        commits (what they did is kept in `bank_followed`)."""
        with self.engine.lock, self.engine.db.transaction() as tx:
            yield tx
            self.bank_followed = follow(self.engine, tx, {bank_items(bank): None})

    def derived_kinds(self, names: Iterable[str]) -> dict[str, str]:
        """The kind of each derived set named (ensemble, calibration, bank score)."""
        kinds = {d.name: d.kind for d in derivations(self.engine.db.cursor())}
        return {name: kinds[name] for name in names if name in kinds}
