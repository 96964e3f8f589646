"""The evaluation engine: leaderboards under any label set, kept current through label edits.

Rankings (every run's ordering of every topic, stored in trec_eval's order at import) are read
once per project as arrays; each label set gets an `Evaluator` whose per-topic matrices stay in
memory. A label edit is written as an audited event and then applied to the cached evaluator,
which recomputes only that topic.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import lru_cache, partial

import numpy as np

from studio.domain.comparisons import EvalRow
from studio.domain.errors import UsageError
from studio.domain.rows import LabelEvent
from studio.metrics.evaluator import Evaluator
from studio.metrics.names import Measure, parse_measure
from studio.metrics.rankings import Rankings, TopicRanking, TopicTable, ordered_rows, topics_from_stored
from studio.store import Connection, Database, new_batch
from studio.store import audits as audit_store
from studio.store import campaigns as campaign_store
from studio.store import labels as label_store
from studio.store import rankings as ranking_store
from studio.store.changes import OutsideEvent


def measure_of(text: str | Measure) -> Measure:
    if isinstance(text, Measure):
        return text
    try:
        return _parsed(text)
    except ValueError as error:
        raise UsageError(str(error)) from error


@lru_cache(maxsize=256)
def _parsed(text: str) -> Measure:
    """A measure's name parsed once (the live view names the same one after every edit)."""
    return parse_measure(text)


class EvaluationEngine:
    def __init__(self, db: Database) -> None:
        self.db = db
        # Held by whoever reads or changes the cached evaluators from a thread that is not the
        # only one using them (a front end's workers and its UI thread, a judge's last writes).
        self.lock = threading.RLock()
        self._rankings: Rankings | None = None
        self._runs: tuple[list[str], list[int]] = ([], [])  # the rankings' runs: names and stored ids
        self._reference_orders: dict[tuple[int, int], np.ndarray] | None = None
        self._followed: frozenset[str] | None = None  # label sets others are made from (read once)
        self._derived: frozenset[str] | None = None  # label sets made from others (read once)
        self._owned: frozenset[str] | None = None  # derived sets and audits' gold sets (read once)
        self._evaluators: dict[str, Evaluator] = {}
        self._set_ids: dict[str, int] = {}  # label set ids by name (a replaced set gets a new one: forgotten)
        # The label event sequence value each cached evaluator is known current at; None once an
        # event it did not see may have come (its grades are then never taken as the replaced ones).
        self._as_of: dict[str, int | None] = {}
        # One batch per (command, person) for the edits made through this open project: each
        # event keeps its own person, time and note, so a batch row per edit would say nothing more.
        self._batches: dict[tuple[str, str | None], int] = {}
        # The id of each (origin, source) its events were written with (`label_event_sources`).
        self._sources: dict[tuple[str, str | None], int] = {}
        # What comparisons keep between edits, by what they compare (see
        # `studio.services.meta.live_correlation`): each entry checks itself against the
        # evaluators it was made from; forgetting labels or runs drops them all.
        self.kept_views: dict[tuple[object, ...], object] = {}

    # -- caches ------------------------------------------------------------------------------

    def rankings(self) -> Rankings:
        if self._rankings is None:
            self._runs = ranking_store.ranked_runs(self.db.cursor())
            self._rankings = Rankings(self._runs[0], TopicTable(self._read_topics))
        return self._rankings

    def _read_topics(self, qids: Sequence[str] | None) -> dict[str, TopicRanking]:
        # Through the asking thread's cursor; a topic's docids are read when first needed.
        stored = ranking_store.fetch_rankings(self.db.cursor(), qids, self._runs)
        vocabularies = [partial(self._docids, key) for key in stored.topic_keys]
        references = [partial(self._reference_order, key, stored.run_ids) for key in stored.topic_keys]
        return topics_from_stored(
            len(stored.runs), stored.qids, stored.sizes, stored.run, stored.topic, stored.docs, vocabularies, references
        )

    def _reference_order(self, topic_key: int, run_ids: list[int]) -> np.ndarray:
        # Compatibility's order of every run and topic, read at once the first time a topic needs it.
        if self._reference_orders is None:
            self._reference_orders = ranking_store.fetch_reference_orders(self.db.cursor())
        rows = [
            (r, self._reference_orders[(run_id, topic_key)])
            for r, run_id in enumerate(run_ids)
            if (run_id, topic_key) in self._reference_orders
        ]
        return ordered_rows(len(run_ids), rows)

    def _docids(self, topic_key: int) -> list[str]:
        return ranking_store.topic_docids(self.db.cursor(), topic_key)

    def label_set_id(self, name: str) -> int:
        found = self._set_ids.get(name)
        if found is None:
            found = label_store.label_set_id(self.db.cursor(), name)
            if found is None:
                raise UsageError(f"no label set named {name!r} (see `studio list qrels`)")
            self._set_ids[name] = found
        return found

    def evaluator(self, name: str) -> Evaluator:
        evaluator = self._evaluators.get(name)
        if evaluator is None:
            con = self.db.cursor()
            as_of = label_store.event_sequence(con)  # read first: the labels are at least this new
            labels, numbers = ranking_store.numbered_labels(con, self.label_set_id(name))
            evaluator = self._evaluators[name] = Evaluator(self.rankings(), labels, numbers)
            self._as_of[name] = as_of
        return evaluator

    def remember(self, name: str, evaluator: Evaluator) -> None:
        """Keep an evaluator of labels that are not a stored label set (a clipped copy) under `name`."""
        self._evaluators[name] = evaluator
        self._as_of[name] = None  # never taken as a stored set's current grades

    def followed(self) -> frozenset[str]:
        """The label sets that derived, ensemble or calibrated sets are made from: an edit of any
        other has nothing to follow it, and costs no lookup of followers."""
        if self._followed is None:
            self._followed = label_store.followed_sets(self.db.cursor())
        return self._followed

    def derived_sets(self) -> frozenset[str]:
        """The label sets made from others (ensembles, calibrations, bank scores), read once."""
        if self._derived is None:
            self._derived = label_store.derived_set_names(self.db.cursor())
        return self._derived

    def owned_sets(self) -> frozenset[str]:
        """The label sets that take no write of a person's own: derived sets and audits' gold sets
        (read once; a live edit's check costs no query)."""
        if self._owned is None:
            self._owned = (
                self.derived_sets()
                | audit_store.audit_names(self.db.cursor())
                | campaign_store.campaign_names(self.db.cursor())
            )
        return self._owned

    def forget_followers(self) -> None:
        """A derived, ensemble or calibrated set or an audit was made (here or in another process)."""
        self._followed = None
        self._derived = None
        self._owned = None

    def forget_runs(self) -> None:
        self._rankings = None
        self._reference_orders = None
        self._evaluators.clear()
        self._as_of.clear()
        self.kept_views.clear()

    def forget_labels(self, name: str | None = None) -> None:
        self.kept_views.clear()
        if name is None:
            self._followed = None
            self._derived = None
            self._owned = None
            self._evaluators.clear()
            self._set_ids.clear()
            self._as_of.clear()
        else:
            self._evaluators.pop(name, None)
            self._set_ids.pop(name, None)
            self._as_of.pop(name, None)

    def own_batches(self) -> set[int]:
        """The batches of the edits made through this engine."""
        return set(self._batches.values())

    def apply_events(self, events: Sequence[OutsideEvent], sequence: int, *, replay_limit: int) -> None:
        """Bring the cached evaluators up to date with the label events written elsewhere (oldest
        first; one's own are applied again harmlessly: the last event of a pair decides), which
        makes them current as of the event `sequence` value read with them."""
        known_ids = dict(self._set_ids)
        self._set_ids.clear()  # a label set replaced elsewhere has a new id
        for name in list(self._evaluators):
            if name in known_ids and label_store.label_set_id(self.db.cursor(), name) != known_ids[name]:
                self.forget_labels(name)  # replaced (or removed): its old labels must not linger
        by_set: dict[str, list[OutsideEvent]] = {}
        for event in events:
            by_set.setdefault(event.label_set, []).append(event)
        for name in list(self._evaluators):
            mine = by_set.get(name, [])
            if self._as_of.get(name) is None or len(mine) > replay_limit:
                self.forget_labels(name)  # read again on next use
                continue
            evaluator = self._evaluators[name]
            for event in mine:
                evaluator.set_label(event.qid, event.docid, event.grade)
            self._as_of[name] = sequence

    # -- leaderboards ------------------------------------------------------------------------

    def leaderboard(self, qrels: str, measure: str | Measure, *, complete: bool = False) -> dict[str, float]:
        evaluator = self.evaluator(qrels)
        values = evaluator.means(measure_of(measure), complete=complete)
        return dict(zip(evaluator.runs, values.tolist(), strict=True))

    def eval_rows(
        self,
        qrels: str,
        measures: list[str],
        *,
        per_topic: bool = False,
        complete: bool = False,
        topics: Sequence[str] | None = None,
    ) -> list[EvalRow]:
        """Rows of `studio eval`: one per run and measure (and topic, with `per_topic`); `topics`:
        only these topics count (as trec_eval on labels cut to them)."""
        evaluator = self.evaluator(qrels)
        rows_of_topics = np.arange(len(evaluator.qids)) if topics is None else np.sort(evaluator.rows_of(topics))
        labelled = evaluator.qrels_topics()[rows_of_topics]
        rows: list[EvalRow] = []
        for text in measures:
            measure = measure_of(text)
            matrix = evaluator.per_topic(measure)[rows_of_topics]
            means = evaluator.means(measure, complete=complete, topics=topics)
            counted = labelled.sum() if complete else (~np.isnan(matrix)).sum(axis=0)
            for r, run in enumerate(evaluator.runs):
                if per_topic:
                    for t, row in enumerate(rows_of_topics):
                        value = matrix[t, r]
                        if not np.isnan(value):  # the topic was evaluated for this run
                            qid = evaluator.qids[row]
                            rows.append(EvalRow(run=run, measure=str(measure), topic=qid, value=float(value), topics=1))
                mean = EvalRow(
                    run=run,
                    measure=str(measure),
                    value=float(means[r]),
                    topics=int(counted) if complete else int(counted[r]),
                )
                if per_topic:
                    mean["topic"] = "all"
                rows.append(mean)
        return rows

    # -- what the write path needs (studio.services.writes) -----------------------------------

    def known_grade(self, name: str, qid: str, docid: str) -> label_store.KnownGrade | None:
        """The pair's grade as the cached evaluator has it, when the cache is known current."""
        evaluator, as_of = self._evaluators.get(name), self._as_of.get(name)
        if evaluator is None or as_of is None:
            return None
        topic = evaluator.labels.get(qid)
        return label_store.KnownGrade(as_of, topic.judged.get(docid) if topic is not None else None)

    def applied(
        self, name: str, qid: str, docid: str, grade: float | None, known: label_store.KnownGrade | None, event: int
    ) -> None:
        """Apply one's own new event to the cached evaluator; it stays known current only when
        that event directly followed what it had seen."""
        evaluator = self._evaluators.get(name)
        if evaluator is None:
            return
        evaluator.set_label(qid, docid, grade)
        self._as_of[name] = event if known is not None and event == known.as_of + 1 else None

    def batch(self, tx: Connection, command: str, person: str | None) -> int:
        """The batch of this open project's edits of one command by one person (new the first time)."""
        found = self.kept_batch(command, person)
        return found if found is not None else new_batch(tx, command, person)

    def kept_batch(self, command: str, person: str | None) -> int | None:
        """The batch of these edits when one was committed already (None: the first edit makes it)."""
        return self._batches.get((command, person))

    def keep_batch(self, command: str, person: str | None, batch: int) -> None:
        """Remember a batch once its first edit is committed."""
        self._batches[(command, person)] = batch

    def event_source(self, tx: Connection, origin: str, source: str | None) -> int:
        """The id of an edit's (origin, source) (looked up, or added, the first time)."""
        found = self.kept_event_source(origin, source)
        return found if found is not None else label_store.event_source_id(tx, origin, source)

    def kept_event_source(self, origin: str, source: str | None) -> int | None:
        """An (origin, source)'s id when an edit committed with it already (None: not yet)."""
        return self._sources.get((origin, source))

    def keep_event_source(self, origin: str, source: str | None, source_id: int) -> None:
        """Remember an (origin, source)'s id once an edit that used it is committed."""
        self._sources[(origin, source)] = source_id

    def history(self, qrels: str | None = None, limit: int = 20) -> list[LabelEvent]:
        set_id = self.label_set_id(qrels) if qrels is not None else None
        return label_store.label_history(self.db.cursor(), set_id, limit)
