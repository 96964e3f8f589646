"""A small project whose two label sets' significance decisions fall in every class.

Five runs under P@10 on 30 topics. Each topic has documents relevant under both label sets
(`b…`), documents only the audited set (`llm`) calls relevant (`u…`, graded 0 by `human`), and
filler no one calls relevant (`n…`). A run's top ten is so many of each; a run's count varies by
one from topic to topic (a seeded coin), so that differences have a spread to be tested against.

human (reference): alpha 7, bravo 4, charlie = bravo, delta 1, echo = bravo  (tenths of P@10)
llm (audited):     alpha 7, bravo 4, charlie = alpha, delta 6, echo = bravo

so, with a t-test and Holm's correction at 0.05, the classes are those of `EXPECTED`.
"""

from __future__ import annotations

import random
from pathlib import Path

from studio.services.project import Project

TOPICS = [str(101 + n) for n in range(30)]
RUNS = ("alpha", "bravo", "charlie", "delta", "echo")
MEASURE = "P@10"
EXPECTED = {
    ("alpha", "bravo"): "both",
    ("alpha", "charlie"): "ref_only",
    ("alpha", "delta"): "both",
    ("alpha", "echo"): "both",
    ("bravo", "charlie"): "qrels_only",
    ("bravo", "delta"): "opposite",
    ("bravo", "echo"): "neither",
    ("charlie", "delta"): "both",
    ("charlie", "echo"): "qrels_only",
    ("delta", "echo"): "opposite",
}


def _ranking(both: int, audited_only: int) -> list[str]:
    docs = [f"b{k}" for k in range(both)] + [f"u{k}" for k in range(audited_only)]
    return docs + [f"n{k}" for k in range(10 - len(docs))]


def build(path: Path) -> Path:
    """The project file at `path` (its folder holds the files it is imported from)."""
    folder = path.parent
    coin = random.Random(7)
    runs: dict[str, list[str]] = {run: [] for run in RUNS}
    human, llm, topics, docs = [], [], [], []
    for qid in TOPICS:
        e, f, g = (coin.randint(0, 1) for _ in range(3))
        rankings = {
            "alpha": _ranking(7 + e, 0),
            "bravo": _ranking(4 + f, 0),
            "charlie": _ranking(4 + f, 3 + e - f),
            "delta": _ranking(1 + g, 5),
            "echo": _ranking(4 + f, 0),
        }
        for run, ranking in rankings.items():
            runs[run] += [f"{qid} Q0 {qid}-{doc} {rank} {100 - rank} {run}" for rank, doc in enumerate(ranking, 1)]
        for k in range(10):
            for prefix, ref_grade, grade in (("b", 1, 1), ("u", 0, 1), ("n", 0, 0)):
                human.append(f"{qid} 0 {qid}-{prefix}{k} {ref_grade}")
                llm.append(f"{qid} 0 {qid}-{prefix}{k} {grade}")
                docs.append(f"{qid}-{prefix}{k}\tpassage {prefix}{k} of topic {qid}")
        topics.append(f"{qid}\tquestion {qid}")
    files = {
        "human.txt": human,
        "llm.txt": llm,
        "topics.tsv": topics,
        "docs.tsv": docs,
        **{f"{run}.run": lines for run, lines in runs.items()},
    }
    for name, lines in files.items():
        (folder / name).write_text("".join(f"{line}\n" for line in lines))
    with Project.open(path) as project:
        project.import_topics(folder / "topics.tsv")
        project.import_docs(folder / "docs.tsv")
        project.import_qrels(folder / "human.txt", name="human", kind="human")
        project.import_qrels(folder / "llm.txt", name="llm", kind="llm")
        project.import_runs([folder / f"{run}.run" for run in RUNS])
    return path
