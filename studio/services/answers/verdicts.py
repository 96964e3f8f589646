"""One verdict on one answer at a time, as an Answers screen shows and edits it.

A verdict is the label of (topic, `answer/<system>`) in its label set, so keeping or overriding it
is an ordinary audited label event written through the one write path (`services/writes/`) and
undone like any other; the card beside it shows what the judge or the imported file said (the
exemplar and both orders of a preference, each subtopic of a subtopic verdict, the raw answers).
"""

from __future__ import annotations

import math

from studio.domain.answer_results import AnswerCard, AnswerKey, ExemplarShown, SubtopicEntry
from studio.domain.choices import AnswerMethod
from studio.domain.errors import UsageError
from studio.domain.models import ANSWER_PREFIX
from studio.services.answers.sets import AnswerSet, answer_set
from studio.store import Connection, catalog, pools
from studio.store import answers as answer_store
from studio.store import banks as bank_store
from studio.store import judging as judge_store

PairJudgment = answer_store.PairJudgment


def answer_keys(con: Connection, label_set: str) -> list[AnswerKey]:
    """Every (topic, system) the set holds a verdict on, by topic (byte order) then system."""
    found = answer_set(con, label_set).verdicts
    keys = [AnswerKey(qid=q, system=s, verdict=v) for s, by_topic in found.items() for q, v in by_topic.items()]
    return sorted(keys, key=lambda k: (k["qid"].encode("utf-8"), k["system"]))


def check_verdict(answers: AnswerSet, value: float, scale: int = 3) -> float:
    """`value` when it is a verdict the set's method can hold, else a UsageError saying which can."""
    method = answers.method
    allowed = {
        AnswerMethod.binary: (value in (0.0, 1.0), "0 or 1"),
        AnswerMethod.graded: (float(value).is_integer() and 0 <= value <= scale, f"a whole grade 0–{scale}"),
        AnswerMethod.subtopics: (0.0 <= value <= 1.0, "a share between 0 and 1"),
        AnswerMethod.preferences: (0.0 <= value <= 1.0, "1 (won), 0 (tie or lost) or a share of exemplars won"),
        AnswerMethod.embedding: (-1.0 <= value <= 1.0, "a cosine between −1 and 1"),
    }
    if method is AnswerMethod.tournament:
        raise UsageError(f"{answers.name} is a tournament: its verdicts are its matches, not labels to override")
    ok, what = allowed[method]
    if not math.isfinite(value) or not ok:
        raise UsageError(f"a {method} verdict is {what}, not {value:g}")
    return value


def answer_card(con: Connection, label_set: str, qid: str, system: str) -> AnswerCard:
    """The answer, its verdict and what the verdict was made of."""
    answers = answer_set(con, label_set)
    docid = ANSWER_PREFIX + system
    judgments = answer_store.newest_pair_judgments(con, answers.set_id, qid, docid)
    texts = pools.passage_texts(
        con, [(qid, docid), *((qid, j.docid) for j in judgments), *_others(qid, judgments, docid)]
    )
    exemplars = _exemplars(qid, docid, judgments, texts)
    subtopics = _subtopics(con, qid, judgments)
    current = answers.verdicts.get(system, {}).get(qid)
    judged = _judged(answers.method, judgments, exemplars, subtopics)
    return AnswerCard(
        label_set=label_set,
        method=answers.method.value,
        qid=qid,
        query=pools.topic_texts(con, [qid]).get(qid),
        system=system,
        answer=texts.get((qid, docid)) if system in catalog.response_systems(con) else None,
        verdict=current,
        judged=judged,
        edited=current is not None and judged is not None and not math.isclose(current, judged),
        raw=[j.output for j in judgments if j.output is not None],
        exemplars=exemplars,
        subtopics=subtopics,
    )


def _others(qid: str, judgments: list[PairJudgment], docid: str) -> list[tuple[str, str]]:
    return [(qid, j.docid_b) for j in judgments if j.docid_b is not None and j.docid_b != docid]


def _exemplars(
    qid: str, docid: str, judgments: list[PairJudgment], texts: dict[tuple[str, str], str]
) -> list[ExemplarShown]:
    """Each passage (or answer) the answer met, with what each order picked."""
    orders: dict[str, dict[bool, str | None]] = {}
    for j in judgments:
        if j.docid_b is None:
            continue
        answer_first = j.docid == docid
        other = j.docid_b if answer_first else j.docid
        picked_first = None if j.label is None else j.label == 1.0
        picked = None if picked_first is None else "answer" if picked_first == answer_first else "exemplar"
        orders.setdefault(other, {})[answer_first] = picked
    shown = []
    for other, by_order in sorted(orders.items()):
        first, second = by_order.get(False), by_order.get(True)
        outcome = (
            None
            if first is None or second is None
            else "win"
            if first == second == "answer"
            else "loss"
            if first == second == "exemplar"
            else "tie"
        )
        shown.append(
            ExemplarShown(
                docid=other, text=texts.get((qid, other)), exemplar_first=first, answer_first=second, outcome=outcome
            )
        )
    return shown


def _subtopics(con: Connection, qid: str, judgments: list[PairJudgment]) -> list[SubtopicEntry]:
    """Each item's verdict, entry 0 first: an imported vector's entries by number, a judged bank's in bank order."""
    graded = [j for j in judgments if j.item_id is not None]
    if not graded:
        return []
    texts = _bank_texts(con, graded[0].run, qid)
    order = {item: i for i, item in enumerate(texts)}
    rows = sorted(graded, key=lambda j: (order.get(j.item_id or "", len(order)), _entry(j.item_id or "")))
    return [
        SubtopicEntry(
            entry=_entry(j.item_id or "") if j.item_id not in texts else order[j.item_id or ""],
            item_id=j.item_id or "",
            text=texts.get(j.item_id or ""),
            satisfied=None if j.label is None else j.label >= 1.0,
        )
        for j in rows
    ]


def _entry(item_id: str) -> int:
    """An imported entry's number (`qid#i`)."""
    _, _, number = item_id.rpartition("#")
    return int(number) if number.isdigit() else -1


def _bank_texts(con: Connection, run: int, qid: str) -> dict[str, str]:
    """{item id: text} of the topic's items in the bank the run graded with, in the bank's order
    (empty for an import)."""
    params = judge_store.judge_run(con, run)["params"]
    bank = (params.get("config") or {}).get("bank")
    bank_id = bank_store.bank_id(con, bank) if bank else None
    if bank_id is None:
        return {}
    return {item.item_id: item.text for item in bank_store.current_items(con, bank_id) if item.qid == qid}


def _judged(
    method: AnswerMethod, judgments: list[PairJudgment], exemplars: list[ExemplarShown], subtopics: list[SubtopicEntry]
) -> float | None:
    """The verdict as the run made it (before a person's edit)."""
    if method is AnswerMethod.subtopics:
        answered = [s["satisfied"] for s in subtopics if s["satisfied"] is not None]
        return sum(answered) / len(answered) if answered else None
    if method is AnswerMethod.preferences:
        outcomes = [e["outcome"] for e in exemplars if e["outcome"] is not None]
        return sum(o == "win" for o in outcomes) / len(outcomes) if outcomes else None
    if method is AnswerMethod.tournament:
        return None
    labelled = [j.label for j in judgments if j.docid_b is None and j.item_id is None and j.label is not None]
    return labelled[-1] if labelled else None
