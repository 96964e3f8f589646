"""Two label sets on overlapping topics, as real collections have them: people label a few topics,
an LLM most of them; and the same label sets cut by hand to the topics both label.

Six runs over ten topics; `people` labels topics t01–t06, `llm` t04–t10 (common: t04–t06), and
one run skips a common topic. Grades disagree on some pairs so that the leaderboards differ.
"""

from __future__ import annotations

import random

from evaluation_builders import Qrels, Run

RUNS = ["bm25", "dense", "duo", "mono", "shuffle", "splade"]
TOPICS = [f"t{n:02d}" for n in range(1, 11)]
PEOPLE_TOPICS = TOPICS[:6]
LLM_TOPICS = TOPICS[3:]
COMMON = sorted(set(PEOPLE_TOPICS) & set(LLM_TOPICS))
DOCS = [f"d{n}" for n in range(1, 16)]


def overlapping_collection(seed: int = 29) -> tuple[dict[str, Run], Qrels, Qrels]:
    """(runs, people, llm): runs of graded skill over every topic, two label sets on overlapping topics."""
    rng = random.Random(seed)
    truth = {qid: {docid: rng.choice([0, 0, 0, 1, 2, 3]) for docid in DOCS} for qid in TOPICS}
    runs: dict[str, Run] = {}
    for r, name in enumerate(RUNS):
        noise = 0.3 + 0.5 * r
        runs[name] = {
            qid: {docid: round(truth[qid][docid] + rng.gauss(0, noise), 3) for docid in rng.sample(DOCS, 10)}
            for qid in TOPICS
            if not (name == "shuffle" and qid == COMMON[0])  # a run that skips a common topic
        }
    people = {qid: {d: g for d, g in truth[qid].items() if rng.random() < 0.8} for qid in PEOPLE_TOPICS}
    llm = {
        qid: {d: (min(3, g + 1) if rng.random() < 0.35 else g) for d, g in truth[qid].items() if rng.random() < 0.8}
        for qid in LLM_TOPICS
    }
    return runs, people, llm


def cut(qrels: Qrels, topics: list[str] | set[str]) -> Qrels:
    """`qrels` with the topics outside `topics` removed (what a user does by hand today)."""
    return {qid: dict(docs) for qid, docs in qrels.items() if qid in topics}
