"""The judged pairs an estimate from a pair audit is over: the gold pool, in two strata.

The population is every pair of the pool the truth is defined over: the pairs the LLM label set
labels and the pairs only the gold side has. Pairs the LLM set lacks are never dropped (dropping
them would change the truth being estimated); they form a stratum of their own in which the LLM
predicts nothing (b = 0), so the gold sample alone speaks for them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from studio.domain.errors import UsageError
from studio.metrics import ppi, ppi_ratio
from studio.metrics.names import Measure
from studio.services.audit.units import labelled_qids
from studio.services.evaluation.engine import EvaluationEngine

LABELLED, UNLABELLED = 0, 1  # strata: the LLM set labels the pair, or it does not
PAIR_MEASURES = ("P", "nDCG")


@dataclass(frozen=True)
class Pairs:
    """The pool's pairs with their LLM grade (NaN: the LLM set lacks it) and gold grade (NaN:
    not in the gold sample), each run's discount at them, and their stratum."""

    keys: list[tuple[str, str]]
    pool: ppi_ratio.PairPool
    llm: np.ndarray  # (M,)
    gold: np.ndarray  # (M,)
    strata: np.ndarray  # (M,) LABELLED or UNLABELLED
    runs: list[str]

    @property
    def sampled(self) -> np.ndarray:
        result: np.ndarray = np.isfinite(self.gold).astype(np.float64)
        return result

    def stratum_sizes(self) -> tuple[int, int]:
        return int((self.strata == LABELLED).sum()), int((self.strata == UNLABELLED).sum())


def check_pairs_measure(measure: Measure) -> None:
    if measure.name not in PAIR_MEASURES or measure.cutoff is None:
        raise UsageError(
            f"--design pairs estimates P@k and nDCG@k (totals and ratios of totals over judged pairs); "
            f"{measure} is not one of them: use --design topics"
        )


def pool_pairs(
    engine: EvaluationEngine,
    qrels: str,
    gold: str,
    measure: Measure,
    *,
    gold_is_pool: bool = False,
    gold_topics_only: bool = False,
) -> Pairs:
    """Every pair `qrels` labels and every pair `gold` labels that `qrels` lacks; a pair's gold
    grade is known when `gold` labels it (`gold_is_pool`: `gold` is the whole truth, so a pair it
    lacks is known not relevant, grade 0). `gold_topics_only`: the pairs of the topics `gold` labels
    (a truth that judged only some topics says nothing of the others)."""
    check_pairs_measure(measure)
    cutoff = measure.cutoff or 0
    llm_eval, gold_eval = engine.evaluator(qrels), engine.evaluator(gold)
    runs = llm_eval.runs
    rankings = engine.rankings().topics
    qids = sorted(set(labelled_qids(llm_eval)) | set(labelled_qids(gold_eval)))
    if gold_topics_only:
        qids = sorted(set(labelled_qids(gold_eval)))
    keys: list[tuple[str, str]] = []
    discounts: list[np.ndarray] = []
    topic_of: list[int] = []
    llm_grades: list[float] = []
    gold_grades: list[float] = []
    covered = np.zeros((len(qids), len(runs)), dtype=bool)
    for t, qid in enumerate(qids):
        topic = rankings.get(qid)
        llm_judged = llm_eval.labels[qid].judged if qid in llm_eval.labels else {}
        gold_judged = gold_eval.labels[qid].judged if qid in gold_eval.labels else {}
        discount = np.zeros((len(runs), (topic.size if topic else 0) + 1))  # last column: not ranked
        if topic is not None:
            covered[t] = topic.lengths > 0
            head = topic.order[:, :cutoff]
            run_of = np.broadcast_to(np.arange(len(runs))[:, None], head.shape)
            rank = np.broadcast_to(np.arange(1, head.shape[1] + 1)[None, :], head.shape)
            ranked = head >= 0
            discount[run_of[ranked], head[ranked]] = 1.0 / np.log2(rank[ranked] + 1.0)
        index = topic.doc_index if topic is not None else {}
        for docid in [*llm_judged, *(d for d in gold_judged if d not in llm_judged)]:
            keys.append((qid, docid))
            topic_of.append(t)
            discounts.append(discount[:, index.get(docid, -1)])
            llm_grades.append(llm_judged.get(docid, np.nan))
            gold_grades.append(gold_judged.get(docid, 0.0 if gold_is_pool else np.nan))
    llm = np.array(llm_grades, dtype=np.float64)
    pool = ppi_ratio.PairPool(
        topic=np.array(topic_of, dtype=np.int64),
        discount=np.array(discounts, dtype=np.float64).reshape(len(keys), len(runs)),
        topic_counts=covered.sum(axis=0),
        covered=covered,
        cutoff=cutoff,
    )
    strata = np.where(np.isfinite(llm), LABELLED, UNLABELLED)
    return Pairs(keys, pool, llm, np.array(gold_grades, dtype=np.float64), strata, runs)


def precision_units(pairs: Pairs, gold_rel: float, llm_rel: float) -> tuple[np.ndarray, np.ndarray]:
    """Unit contributions (a, b) of P@k: the pair's document in the run's top k and relevant at
    each side's own level; a pair the LLM lacks predicts nothing (b = 0)."""
    in_top = (pairs.pool.discount > 0).astype(np.float64)
    with np.errstate(invalid="ignore"):
        gold_relevant = np.where(np.isfinite(pairs.gold), pairs.gold >= gold_rel, False).astype(np.float64)
        llm_relevant = np.where(np.isfinite(pairs.llm), pairs.llm >= llm_rel, False).astype(np.float64)
    return ppi.pair_units(in_top, pairs.pool.topic_counts, pairs.pool.cutoff, llm_relevant, gold_relevant)
