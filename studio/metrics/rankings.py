"""Runs and label sets as per-topic arrays, the shape every measure works on.

A topic's documents (every docid any run retrieved for it) get dense indices; each run's
ranking of the topic is a row of doc indices in trec_eval's order (score descending, ties by
docid in descending byte order), padded with -1. A label set becomes, per topic, the grade of
each of those documents (NaN when unjudged) plus every judged grade (retrieved or not), which
recall and the ideal DCG need.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np

UNRANKED = -1


Vocabulary = Callable[[], list[str]]
ReferenceOrder = Callable[[], np.ndarray]


@dataclass
class TopicRanking:
    """One topic ranked by every run: document numbers (0 … size-1) in each run's order.

    The docids behind the numbers are read only when something asks for them (a label on a
    document not labelled before, the documents a run retrieved): a project of millions of
    ranked documents opens without turning them into Python strings.
    """

    qid: str
    order: np.ndarray  # (runs, depth) doc numbers, UNRANKED padding
    lengths: np.ndarray  # (runs,) documents retrieved by each run (0: the run skips the topic)
    size: int  # documents numbered for the topic
    vocabulary: Vocabulary  # docids by number, read on first use
    # The runs' orders as Clarke's compatibility.py sorts them (score as a double descending, ties
    # by docid ascending), read on first use; None: the order above (rankings given as lists).
    reference: ReferenceOrder | None = field(default=None, repr=False)
    _docids: list[str] | None = field(default=None, repr=False)
    _doc_index: dict[str, int] | None = field(default=None, repr=False)
    _reference_order: np.ndarray | None = field(default=None, repr=False)

    @property
    def reference_order(self) -> np.ndarray:
        """(runs, depth) doc numbers in the compatibility reference's order, UNRANKED padding."""
        if self._reference_order is None:
            self._reference_order = self.order if self.reference is None else self.reference()
        return self._reference_order

    @property
    def docids(self) -> list[str]:
        if self._docids is None:
            self._docids = self.vocabulary()
        return self._docids

    @property
    def doc_index(self) -> dict[str, int]:
        if self._doc_index is None:
            self._doc_index = {docid: number for number, docid in enumerate(self.docids)}
        return self._doc_index

    def number_of(self, docid: str) -> int | None:
        """One document's number (None: no run ranked it). One look-up does not build the index
        of the whole topic: a scan of the list costs a tenth of it (a live edit's budget is 3 ms)."""
        if self._doc_index is not None:
            return self._doc_index.get(docid)
        try:
            return self.docids.index(docid)
        except ValueError:
            return None


# Reads the rankings of the topics asked for ({qid: ranking}; a qid no run ranks is left out),
# or of every ranked topic in qid byte order when asked for None.
TopicLoader = Callable[[Sequence[str] | None], dict[str, TopicRanking]]


class TopicTable(Mapping[str, TopicRanking]):
    """The runs' rankings by topic, each read when first asked for.

    A measure needs only the topics its label set labels: a run over a million topics (most of
    them labelled by nothing) costs a command nothing until something walks every topic (a pool
    over the runs), which reads them all once.
    """

    def __init__(self, load: TopicLoader) -> None:
        self._load = load
        self._read: dict[str, TopicRanking | None] = {}  # None: asked for, ranked by no run
        self._every: list[str] | None = None  # every ranked topic in byte order, once walked

    @classmethod
    def of(cls, topics: dict[str, TopicRanking]) -> TopicTable:
        """A table of rankings already at hand (lists, tests)."""

        def load(qids: Sequence[str] | None) -> dict[str, TopicRanking]:
            return dict(topics) if qids is None else {q: topics[q] for q in qids if q in topics}

        return cls(load)

    def read(self, qids: Iterable[str]) -> None:
        """Read the topics among `qids` not read yet, in one go."""
        if self._every is not None:
            return
        missing = [q for q in dict.fromkeys(qids) if q not in self._read]
        if missing:
            found = self._load(missing)
            for qid in missing:
                self._read[qid] = found.get(qid)

    def held(self) -> int:
        """How many topics' rankings are in memory."""
        return sum(topic is not None for topic in self._read.values())

    def __getitem__(self, qid: str) -> TopicRanking:
        self.read((qid,))
        topic = self._read.get(qid)
        if topic is None:
            raise KeyError(qid)
        return topic

    def __contains__(self, qid: object) -> bool:
        return isinstance(qid, str) and self.get(qid) is not None

    def _walk(self) -> list[str]:
        if self._every is None:
            everything = self._load(None)
            # Rankings read before keep their identity (and the docids they have read since).
            for qid, topic in everything.items():
                if self._read.get(qid) is None:
                    self._read[qid] = topic
            self._every = list(everything)
        return self._every

    def __iter__(self) -> Iterator[str]:
        return iter(self._walk())

    def __len__(self) -> int:
        return len(self._walk())


@dataclass
class Rankings:
    runs: list[str]
    topics: TopicTable  # in qid byte order when walked

    @property
    def qids(self) -> list[str]:
        return list(self.topics)


def single_precision(score: float) -> float:
    """A score as trec_eval holds it: a C float (TEXT_RESULTS.sim), so scores equal in single
    precision tie and fall back to the docid order. A double rounds to the nearest float, as C
    converts it: 3.4028235e38 to the largest float, only from `store.rankings.FLOAT_OVERFLOW` on to ±inf."""
    with np.errstate(over="ignore"):
        return float(np.float32(score))


def trec_order(entries: Iterable[tuple[str, float]]) -> list[str]:
    """Docids in trec_eval's order: score (in single precision) descending, then docid
    descending by bytes."""
    ranked = sorted(entries, key=lambda e: e[0].encode("utf-8"), reverse=True)
    ranked.sort(key=lambda e: single_precision(e[1]), reverse=True)
    return [docid for docid, _ in ranked]


def ordered_rows(runs: int, rows: Sequence[tuple[int, np.ndarray]]) -> np.ndarray:
    """(runs, depth) doc numbers from (run index, doc numbers) rows, UNRANKED padding."""
    depth = max((len(docs) for _, docs in rows), default=0)
    order = np.full((runs, depth), UNRANKED, dtype=np.intp)
    for r, docs in rows:
        order[r, : len(docs)] = docs
    return order


def rankings_from_lists(runs: Mapping[str, Mapping[str, list[str]]]) -> Rankings:
    """Build from {run: {qid: [docids in rank order]}} (small data, tests, sample project)."""
    names = sorted(runs)
    qids = sorted({q for per_topic in runs.values() for q in per_topic}, key=lambda q: q.encode("utf-8"))
    topics = {}
    for qid in qids:
        docids: list[str] = []
        index: dict[str, int] = {}
        rows = [runs[name].get(qid, []) for name in names]
        for row in rows:
            for docid in row:
                if docid not in index:
                    index[docid] = len(docids)
                    docids.append(docid)
        depth = max((len(row) for row in rows), default=0)
        order = np.full((len(names), depth), UNRANKED, dtype=np.intp)
        for r, row in enumerate(rows):
            order[r, : len(row)] = [index[d] for d in row]
        lengths = np.array([len(row) for row in rows], dtype=np.int64)
        topics[qid] = TopicRanking(qid, order, lengths, len(docids), partial(list, docids))
    return Rankings(names, TopicTable.of(topics))


def topics_from_stored(
    runs: int,
    qids: list[str],
    sizes: list[int],
    run: np.ndarray,
    topic: np.ndarray,
    docs: Sequence[np.ndarray],
    vocabularies: Sequence[Vocabulary],
    references: Sequence[ReferenceOrder] | None = None,
) -> dict[str, TopicRanking]:
    """Build from stored rankings of `runs` runs: row i is run `run[i]`'s ranking of topic
    `topic[i]` (indexes into the runs and `qids`), its document numbers in trec_eval's order in
    `docs[i]`."""
    lengths = np.array([len(d) for d in docs], dtype=np.int64)
    by_topic = np.argsort(topic, kind="stable")
    bounds = np.searchsorted(topic[by_topic], np.arange(len(qids) + 1))
    topics = {}
    for t, qid in enumerate(qids):
        rows = by_topic[bounds[t] : bounds[t + 1]]
        depth = int(lengths[rows].max()) if len(rows) else 0
        order = np.full((runs, depth), UNRANKED, dtype=np.intp)  # intp: indexing needs no conversion
        counts = np.zeros(runs, dtype=np.int64)
        for row in rows.tolist():
            order[run[row], : lengths[row]] = docs[row]
            counts[run[row]] = lengths[row]
        topics[qid] = TopicRanking(
            qid, order, counts, sizes[t], vocabularies[t], references[t] if references is not None else None
        )
    return topics


@dataclass
class TopicLabels:
    """One topic of a label set, aligned to a topic's ranked documents."""

    judged: dict[str, float]  # every label of the topic
    grades: np.ndarray  # grade of each ranked doc number; NaN when unjudged
    numbers: dict[str, int] = field(default_factory=dict)  # doc number of each judged doc some run ranked
    all_grades: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.all_grades = np.fromiter(self.judged.values(), dtype=np.float64, count=len(self.judged))

    def set(self, docid: str, grade: float | None, doc_number: int | None) -> None:
        """Change one label (None removes it)."""
        if grade is None:
            self.judged.pop(docid, None)
        else:
            self.judged[docid] = grade
        if doc_number is not None:
            self.grades[doc_number] = np.nan if grade is None else grade
            self.numbers[docid] = doc_number
        self.all_grades = np.fromiter(self.judged.values(), dtype=np.float64, count=len(self.judged))


# A label set as {qid: {docid: grade}}, and optionally the doc number of each labelled document
# the runs ranked ({qid: {docid: number}}), which spares reading the topics' vocabularies.
Labels = Mapping[str, Mapping[str, float]]
Numbers = Mapping[str, Mapping[str, int]]


def align_labels(rankings: Rankings, labels: Labels, numbers: Numbers | None = None) -> dict[str, TopicLabels]:
    """{qid: {docid: grade}} -> per-topic arrays, for every topic of the label set."""
    aligned = {}
    for qid, judged in labels.items():
        topic = rankings.topics.get(qid)
        grades = np.full(topic.size if topic else 0, np.nan)
        known: dict[str, int] = {}
        if topic is not None:
            lookup = numbers.get(qid, {}) if numbers is not None else topic.doc_index
            for docid, grade in judged.items():
                number = lookup.get(docid)
                if number is not None:
                    grades[number] = grade
                    known[docid] = number
        aligned[qid] = TopicLabels(dict(judged), grades, known)
    return aligned
