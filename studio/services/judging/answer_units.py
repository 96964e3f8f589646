"""The calls of a preference judge of generated answers against exemplars (Arabzadeh & Clarke's
Gen-IR comparison): each answer against a Best passage of the topic under a reference label set,
asked in both orders.

The exemplar is drawn per topic with the judge's seed, so every system's answer to a topic meets
the same passage (`--exemplars one`, the paper's); `--exemplars all` asks against every Best passage
and the answer's label is the share it wins.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from studio.domain.choices import ExemplarChoice
from studio.domain.errors import UsageError
from studio.domain.judging import JudgeConfig
from studio.domain.models import ANSWER_PREFIX
from studio.judges.methods import Method
from studio.services.judging.units import Unit
from studio.store import Database, pools
from studio.store import labels as label_store
from studio.store.evaluation import load_labels

Pair = tuple[str, str]


@dataclass
class ExemplarUnits:
    """The calls, the answers that cannot be judged (with why), and the exemplar pairs shown."""

    units: list[Unit] = field(default_factory=list)
    missing: dict[Pair, str] = field(default_factory=dict)
    shown: set[Pair] = field(default_factory=set)


def exemplar_draws(config: JudgeConfig) -> bool:
    """Whether the judge compares answers with exemplar passages (not with each other, `none`)."""
    return config.exemplars in (ExemplarChoice.one, ExemplarChoice.all)


def best_passages(db: Database, ref: str, qids: set[str]) -> dict[str, list[str]]:
    """{qid: the passages with the topic's top grade under `ref`} (none when that grade is below 1)."""
    ref_id = label_store.label_set_id(db.cursor(), ref)
    if ref_id is None:
        raise UsageError(f"no reference label set {ref!r} to take the exemplars from (--ref)")
    reference = load_labels(db.cursor(), ref_id)
    best = {}
    for qid in qids:
        grades = reference.get(qid, {})
        top = max(grades.values(), default=0.0)
        best[qid] = sorted(d for d, g in grades.items() if g == top) if top >= 1 else []
    return best


def drawn_exemplars(best: list[str], choice: str, seed: int, qid: str) -> list[str]:
    """The exemplars an answer to `qid` meets: one drawn with the seed (the same for every system), or all."""
    if not best or choice == ExemplarChoice.all:
        return sorted(best)
    return [random.Random(f"{seed}/{qid}/exemplar").choice(sorted(best))]


def exemplar_units(db: Database, method: Method, pairs: list[Pair], config: JudgeConfig) -> ExemplarUnits:
    """Both orders of (answer, exemplar) for every answer of the pool."""
    if not method.pairwise:
        raise UsageError("--exemplars goes with the pairwise method")
    if any(not docid.startswith(ANSWER_PREFIX) for _, docid in pairs):
        raise UsageError("--exemplars compares generated answers with passages: judge the responses pool (--answers)")
    best = best_passages(db, config.ref, {qid for qid, _ in pairs})
    chosen = {qid: drawn_exemplars(docs, str(config.exemplars), config.seed, qid) for qid, docs in best.items()}
    con = db.cursor()
    queries = pools.topic_texts(con, [q for q, _ in pairs])
    texts = pools.passage_texts(con, pairs + [(qid, e) for qid, docs in chosen.items() for e in docs])
    found = ExemplarUnits()
    for qid, answer in pairs:
        why = _why_not(qid, answer, queries, texts, chosen.get(qid, []), config.ref)
        if why is not None:
            found.missing[(qid, answer)] = why
            continue
        for exemplar in chosen[qid]:
            found.shown.add((qid, exemplar))
            for first, second in ((exemplar, answer), (answer, exemplar)):
                request = method.request(
                    (qid, first, second),
                    query=queries[qid],
                    passage_a=texts[(qid, first)],
                    passage_b=texts[(qid, second)],
                )
                found.units.append(Unit(qid, first, second, request))
    return found


def _why_not(
    qid: str, answer: str, queries: dict[str, str], texts: dict[Pair, str], exemplars: list[str], ref: str
) -> str | None:
    if qid not in queries or (qid, answer) not in texts:
        return "no text for the topic or the answer"
    if not exemplars:
        return f"no exemplar: the topic's highest {ref!r} grade is below 1"
    lacking = [e for e in exemplars if (qid, e) not in texts]
    return f"no text for exemplar {lacking[0]!r}" if lacking else None
