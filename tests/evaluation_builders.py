"""A small TREC collection written to files, and trec_eval (pytrec_eval) answers about it.

The runs have many score ties, docids whose byte order differs from their numeric order
('999' before '1000'), a rank column that contradicts the scores (trec_eval ignores it), a
topic no qrels judge ("999") and the qrels a topic no run retrieves ("1000").
"""

from __future__ import annotations

import random
from pathlib import Path

import pytrec_eval

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]
Collection = tuple[dict[str, Run], Qrels, Qrels]  # runs by name, the human qrels, the llm qrels

RUN_NAMES = ["bm25", "dense", "duo", "mono", "random", "splade"]
RUN_TOPICS = ["1", "2", "10", "999"]
QRELS_TOPICS = ["1", "2", "10", "1000"]
DOCIDS = ["999", "1000", "0999", "a", "B", "b", "d1", "d2", "d10", "d20", "x", "Z"]
SCORES = [1.0, 2.0, 2.0, 3.5, 3.5, 7.0]

# Our measure name -> (pytrec_eval request, result key, relevance level).
TREC_EVAL_NAMES = {
    "nDCG@10": ("ndcg_cut.10", "ndcg_cut_10", 1),
    "nDCG": ("ndcg", "ndcg", 1),
    "AP": ("map", "map", 1),
    "P@5": ("P.5", "P_5", 1),
    "RR": ("recip_rank", "recip_rank", 1),
    "R@100": ("recall.100", "recall_100", 1),
    "Rprec": ("Rprec", "Rprec", 1),
    "P(rel=2)@5": ("P.5", "P_5", 2),
    "AP(rel=2)": ("map", "map", 2),
}


def make_collection(seed: int = 2024) -> Collection:
    """Runs, a 'human' label set and an 'llm' one that disagrees with it on some pairs."""
    rng = random.Random(seed)
    runs: dict[str, Run] = {}
    for name in RUN_NAMES:
        runs[name] = {
            qid: {docid: rng.choice(SCORES) for docid in rng.sample(DOCIDS, rng.randint(5, 10))}
            for qid in RUN_TOPICS
            if not (name == "random" and qid == "2")  # one run skips a topic
        }
    human: Qrels = {}
    for qid in QRELS_TOPICS:
        judged = rng.sample(DOCIDS, 8)
        human[qid] = {docid: rng.choice([0, 0, 1, 2, 3]) for docid in judged}
        human[qid][judged[0]] = 3  # every topic has something relevant
    llm: Qrels = {}
    for qid, docs in human.items():
        llm[qid] = {}
        for docid, grade in docs.items():
            if rng.random() < 0.15:
                continue  # judged by people only
            llm[qid][docid] = rng.choice([0, 1, 2, 3]) if rng.random() < 0.4 else grade
        extra = rng.choice([d for d in DOCIDS if d not in docs])
        llm[qid][extra] = rng.choice([1, 2])  # judged by the LLM only
    return runs, human, llm


def write_run(path: Path, name: str, run: Run) -> Path:
    lines = []
    for qid, docs in run.items():
        # The rank column counts the wrong way on purpose: trec_eval ranks by score.
        for rank, (docid, score) in enumerate(sorted(docs.items(), key=lambda e: e[1]), start=1):
            lines.append(f"{qid} Q0 {docid} {rank} {score:g} {name}\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path


def write_qrels(path: Path, qrels: Qrels) -> Path:
    lines = [f"{qid} 0 {docid} {grade}\n" for qid, docs in qrels.items() for docid, grade in docs.items()]
    path.write_text("".join(lines), encoding="utf-8")
    return path


def trec_eval_per_topic(runs: dict[str, Run], qrels: Qrels, measure: str) -> dict[str, dict[str, float]]:
    """{run: {qid: value}} from trec_eval's C code."""
    request, key, level = TREC_EVAL_NAMES[measure]
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {request}, relevance_level=level)
    return {name: {qid: v[key] for qid, v in evaluator.evaluate(run).items()} for name, run in runs.items()}


def trec_eval_means(runs: dict[str, Run], qrels: Qrels, measure: str, complete: bool = False) -> dict[str, float]:
    """trec_eval's summary line per run (with -c when `complete`)."""
    out = {}
    for name, values in trec_eval_per_topic(runs, qrels, measure).items():
        count = len(qrels) if complete else len(values)
        out[name] = sum(values.values()) / count if count else 0.0
    return out


def shared_pairs(ref: Qrels, other: Qrels) -> list[tuple[str, str, int, int]]:
    return [(q, d, g, other[q][d]) for q, docs in ref.items() for d, g in docs.items() if d in other.get(q, {})]


def edited(qrels: Qrels, qid: str, docid: str, grade: int | None) -> Qrels:
    copy = {q: dict(docs) for q, docs in qrels.items()}
    if grade is None:
        copy[qid].pop(docid, None)
    else:
        copy.setdefault(qid, {})[docid] = grade
    return copy
