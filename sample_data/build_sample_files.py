"""Write the sample project's data files from the hand-written topics in `source/`.

Each `source/topic_<qid>.json` holds a topic, its passages with their human grades and roles,
an exam-question bank, a nugget bank and three generated answers. This script turns them into
the studio's import formats, and derives six runs of clearly different quality with a fixed
seed. Run it again after editing a source file: `python sample_data/build_sample_files.py`.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 7
DEPTH = 25  # documents per topic in every run
FOREIGN_PER_TOPIC = 2  # passages of other topics each run retrieves (unjudged for this topic)


def load_topics() -> list[dict]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted((HERE / "source").glob("topic_*.json"))]


def write_lines(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def item_id(qid: str, text: str) -> str:
    return f"{qid}/{hashlib.md5(text.encode('utf-8')).hexdigest()}"


# Each run scores a passage from its human grade and role; the noise decides how good it is.
def score_strong(p: dict, rng: random.Random) -> float:
    return p["grade"] + rng.gauss(0, 0.35)


def score_good(p: dict, rng: random.Random) -> float:
    return p["grade"] + rng.gauss(0, 0.8)


def score_lexical(p: dict, rng: random.Random) -> float:
    # Term matching: rewarded by repeated query words, so stuffed passages rise.
    bonus = 2.5 if p["role"] == "keyword-stuffed" else 0.0
    return 0.6 * p["grade"] + bonus + rng.gauss(0, 1.0)


def score_weak(p: dict, rng: random.Random) -> float:
    return 0.3 * p["grade"] + rng.gauss(0, 1.2)


def score_random(p: dict, rng: random.Random) -> float:
    return rng.random()


def score_adversarial(p: dict, rng: random.Random) -> float:
    # Ranks the keyword-stuffed and misleading passages first, then the rest by a weak signal.
    trap = {"keyword-stuffed": 10.0, "misleading": 6.0, "wrong-intent": 5.0}.get(p["role"], 0.0)
    return trap + 0.4 * p["grade"] + rng.gauss(0, 0.5)


RUNS = {
    "rerank-strong": score_strong,
    "dense-good": score_good,
    "lexical-bm25": score_lexical,
    "weak-baseline": score_weak,
    "random-shuffle": score_random,
    "adversarial-stuffer": score_adversarial,
}


def write_runs(topics: list[dict]) -> None:
    rng = random.Random(SEED)
    for name, score in RUNS.items():
        lines = []
        for topic in topics:
            others = [p for t in topics if t["qid"] != topic["qid"] for p in t["passages"]]
            foreign = rng.sample(others, FOREIGN_PER_TOPIC)
            scored = [(score(p, rng), p["docid"]) for p in topic["passages"]]
            # Foreign passages are off-topic for this query: scored as an irrelevant one would be.
            scored += [(score({**p, "grade": 0, "role": "off-topic"}, rng), p["docid"]) for p in foreign]
            scored.sort(key=lambda pair: (-pair[0], pair[1]))
            lines += [
                f"{topic['qid']} Q0 {docid} {rank} {value:.4f} {name}"
                for rank, (value, docid) in enumerate(scored[:DEPTH], start=1)
            ]
        write_lines(HERE / "runs" / f"{name}.txt", lines)


def write_banks(topics: list[dict]) -> None:
    questions = []
    for topic in topics:
        items = [
            {"query_id": topic["qid"], "facet_id": None, "info": None,
             "question_id": item_id(topic["qid"], q), "question_text": q, "gold_answers": None}
            for q in topic["questions"]
        ]
        questions.append({"query_id": topic["qid"], "facet_id": None, "test_collection": "studio-sample",
                          "query_text": topic["text"], "info": None, "items": items})
    bank = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in questions)
    # mtime=0 keeps the gzip bytes identical from one build to the next.
    (HERE / "banks").mkdir(exist_ok=True)
    (HERE / "banks" / "questions.jsonl.gz").write_bytes(gzip.compress(bank.encode("utf-8"), mtime=0))
    write_lines(
        HERE / "banks" / "nuggets.jsonl",
        [json.dumps({"qid": t["qid"], "query": t["text"], "nuggets": t["nuggets"]}, ensure_ascii=False)
         for t in topics],
    )


def write_responses(topics: list[dict]) -> None:
    simple = []
    rag24 = []
    for topic in topics:
        for system in ("solid", "terse"):
            simple.append(json.dumps({"qid": topic["qid"], "system": system,
                                      "text": topic["answers"][system]}, ensure_ascii=False))
        # The "liar" system is kept in the TREC RAG 2024 answer format, one sentence per entry.
        liar = topic["answers"]["liar"]
        references = sorted({p["docid"] for p in topic["passages"] if p["docid"] in liar})
        sentences = [s.strip() + "." for s in liar.split(". ") if s.strip()]
        answer = [{"text": s.rstrip(".") + ".", "citations": [i for i, d in enumerate(references) if d in s]}
                  for s in sentences]
        rag24.append(json.dumps({"run_id": "liar", "topic_id": topic["qid"], "topic": topic["text"],
                                 "references": references, "response_length": len(liar.split()),
                                 "answer": answer}, ensure_ascii=False))
    write_lines(HERE / "responses" / "answers.jsonl", simple)
    write_lines(HERE / "responses" / "liar.rag24.jsonl", rag24)


def main() -> None:
    topics = load_topics()
    write_lines(HERE / "topics.tsv", [f"{t['qid']}\t{t['text']}" for t in topics])
    write_lines(
        HERE / "documents.jsonl",
        [json.dumps({"docid": p["docid"], "title": p["title"], "text": p["text"]}, ensure_ascii=False)
         for t in topics for p in t["passages"]],
    )
    write_lines(
        HERE / "qrels" / "human.txt",
        [f"{t['qid']} 0 {p['docid']} {p['grade']}" for t in topics for p in t["passages"]],
    )
    write_runs(topics)
    write_banks(topics)
    write_responses(topics)
    print(f"wrote the sample files for {len(topics)} topics")


if __name__ == "__main__":
    main()
