"""Shared builders for the metric tests: random collections, our evaluator, and oracles.

Everything here is either a hypothesis strategy or an implementation that is independent of
`studio.metrics` (so it can serve as an oracle); the one exception, `evaluator_for`, builds
our evaluator exactly as the studio does (`rankings_from_lists(trec_order(...))`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import cmp_to_key

from hypothesis import strategies as st

from studio.metrics.evaluator import Evaluator
from studio.metrics.names import Measure
from studio.metrics.rankings import rankings_from_lists, trec_order

Qrels = dict[str, dict[str, float]]
Run = dict[str, dict[str, float]]  # {qid: {docid: score}}
Collection = tuple[Qrels, dict[str, Run]]  # qrels and runs by name

# Docids whose byte order differs from numeric order and from case-insensitive order:
# strcmp puts '999' after '1000', 'B' before 'a', '0999' before '1', 'é' (0xC3…) last.
DOCIDS = ["1", "2", "10", "999", "1000", "0999", "a", "B", "b", "Z", "doc-1", "é"]
QIDS = ["1", "2", "10", "999", "1000", "q"]
# Few distinct scores: most rankings have ties that only the docid order breaks.
SCORES = [-1.5, 0.0, 0.5, 1.0, 2.0, 7.25]
INT_GRADES = [-1, 0, 1, 2, 3]
FLOAT_GRADES = [-1.0, 0.0, 0.5, 1.0, 1.25, 2.0, 2.75, 3.0]


@st.composite
def collections(
    draw: st.DrawFn,
    grades: Sequence[float] = INT_GRADES,
    scores: Sequence[float] = SCORES,
    max_runs: int = 4,
    all_negative_topics: bool = False,
) -> Collection:
    """Qrels and runs over a few topics, covering the awkward cases trec_eval has rules for.

    Topics may be only in the qrels, only in runs, in both; a run may skip topics; a topic may
    have no relevant document; runs retrieve unjudged documents and miss judged ones.

    `all_negative_topics` allows a topic whose grades are all negative. trec_eval (9.0.8, and so
    pytrec_eval) mishandles such a topic: `te_form_res_rels` leaves `num_rel_levels` stale from
    the previous topic, and its uncut `ndcg` then reads stale level counts and can loop for
    minutes. Only the tests that do not call pytrec_eval allow them.
    """
    qids = draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=5, unique=True))
    qrels: Qrels = {}
    for qid in qids:
        if draw(st.booleans()) or qid == qids[0]:
            qrels[qid] = draw(st.dictionaries(st.sampled_from(DOCIDS), st.sampled_from(grades), min_size=1, max_size=8))
    if draw(st.booleans()):  # a topic where nothing is relevant
        some = draw(st.sampled_from(sorted(qrels)))
        qrels[some] = {d: min(g, 0) for d, g in qrels[some].items()}
    if not all_negative_topics:
        for docs in qrels.values():
            if max(docs.values()) < 0:
                docs[min(docs)] = 0
    n_runs = draw(st.integers(1, max_runs))
    runs: dict[str, Run] = {}
    for r in range(n_runs):
        run: Run = {}
        for qid in qids:
            if draw(st.integers(0, 4)) == 0:
                continue  # this run skips the topic
            run[qid] = draw(st.dictionaries(st.sampled_from(DOCIDS), st.sampled_from(scores), min_size=1, max_size=10))
        runs[f"run{r}"] = run
    return qrels, runs


def evaluator_for(qrels: Mapping[str, Mapping[str, float]], runs: dict[str, Run]) -> Evaluator:
    """Our evaluator, built the way the studio builds it from rows with scores."""
    lists = {name: {qid: trec_order(docs.items()) for qid, docs in run.items()} for name, run in runs.items()}
    return Evaluator(rankings_from_lists(lists), qrels)


def per_topic_dict(evaluator: Evaluator, measure: Measure) -> dict[str, dict[str, float]]:
    """{run: {qid: value}} over the cells our evaluator computed (non-NaN)."""
    matrix = evaluator.per_topic(measure)
    out: dict[str, dict[str, float]] = {run: {} for run in evaluator.runs}
    for t, qid in enumerate(evaluator.qids):
        for r, run in enumerate(evaluator.runs):
            if not math.isnan(matrix[t, r]):
                out[run][qid] = float(matrix[t, r])
    return out


# -- an independent implementation of trec_eval 9.0.8's rules -----------------------------------


def _strcmp_descending(a: tuple[str, float], b: tuple[str, float]) -> int:
    """trec_eval's qsort comparator: score descending, then strcmp(b.docno, a.docno)."""
    if a[1] != b[1]:
        return -1 if a[1] > b[1] else 1
    x, y = a[0].encode("utf-8"), b[0].encode("utf-8")
    return (y > x) - (y < x)


def trec_ranking(docs: dict[str, float]) -> list[str]:
    return [d for d, _ in sorted(docs.items(), key=cmp_to_key(_strcmp_descending))]


def reference_measure(name: str, k: int | None, level: float, ranking: list[str], judged: dict[str, float]) -> float:
    """One topic's value of a measure, straight from trec_eval's definitions."""
    grade = [judged.get(d) for d in ranking]
    relevant = [g is not None and g >= level for g in grade]
    num_rel = sum(1 for g in judged.values() if g >= level)
    head = relevant if k is None else relevant[:k]
    if name == "nDCG":
        gains = [g if g is not None and g > 0 else 0.0 for g in grade]
        gains = gains if k is None else gains[:k]
        dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
        ideal_gains = sorted((g for g in judged.values() if g > 0), reverse=True)
        ideal_gains = ideal_gains if k is None else ideal_gains[:k]
        ideal = sum(g / math.log2(i + 2) for i, g in enumerate(ideal_gains))
        return dcg / ideal if ideal > 0 else 0.0
    if name == "P":
        assert k is not None, "P needs a cutoff"
        return sum(head) / k
    if name == "R":
        return sum(head) / num_rel if num_rel else 0.0
    if name == "AP":
        hits, total = 0, 0.0
        for i, rel in enumerate(head):
            if rel:
                hits += 1
                total += hits / (i + 1)
        return total / num_rel if num_rel else 0.0
    if name == "RR":
        return next((1.0 / (i + 1) for i, rel in enumerate(head) if rel), 0.0)
    if name == "Rprec":
        return sum(relevant[:num_rel]) / num_rel if num_rel else 0.0
    raise ValueError(name)


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0
