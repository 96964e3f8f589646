"""What a label set says about generated answers: which method made its verdicts, and its verdict
per (topic, system).

Answers are labelled as documents named `answer/<system>`. A label set's method is read from its
newest judge run: an imported verdict file is kept as a judge run of backend `import` whose
parameters name the layout (`answers`), an answers judge's run keeps its configuration
(`answers`, `exemplars`). A set no answers judge made (a person's grades of answers, say) holds
grades: its method is graded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from studio.domain.choices import AnswerMethod, ExemplarChoice
from studio.domain.errors import UsageError
from studio.domain.models import ANSWER_PREFIX
from studio.store import Connection
from studio.store import judging as judge_store
from studio.store import labels as label_store
from studio.store.evaluation import load_labels

# Verdicts by system, then topic: {system: {qid: value}}.
SystemVerdicts = dict[str, dict[str, float]]


def method_of_run(method: str, params: dict[str, Any]) -> AnswerMethod | None:
    """The answer method of a judge run (None: it judged no answers, or not with an answer method)."""
    imported = params.get("answers")
    if isinstance(imported, str) and imported in set(AnswerMethod):
        return AnswerMethod(imported)
    config = params.get("config") or {}
    if not config.get("answers"):
        return None
    if method == "pairwise":
        return AnswerMethod.tournament if config.get("exemplars") == ExemplarChoice.none else AnswerMethod.preferences
    return {
        "binary": AnswerMethod.binary,
        "umbrela": AnswerMethod.graded,
        "graded": AnswerMethod.graded,
        "subtopic": AnswerMethod.subtopics,
        "embedding": AnswerMethod.embedding,
    }.get(method)


@dataclass(frozen=True)
class AnswerSet:
    """A label set read as verdicts on answers."""

    name: str
    set_id: int
    method: AnswerMethod
    judged: bool  # made by an answers judge or an imported verdict file (else a set of grades)
    verdicts: SystemVerdicts
    scale: int = 3  # the highest grade of a graded set


def judged_method(con: Connection, set_id: int) -> AnswerMethod | None:
    """The answer method of the set's newest judge run, if an answers judge or import made it."""
    newest = judge_store.newest_judge_run(con, set_id)
    if newest is None:
        return None
    return method_of_run(newest[1], json.loads(newest[2]))


def _scale(con: Connection, set_id: int) -> int:
    """The highest grade of the set's verdicts: as the newest imported file's scale says, else 3."""
    newest = judge_store.newest_judge_run(con, set_id)
    scale = json.loads(newest[2]).get("scale") if newest is not None else None
    return scale if isinstance(scale, int) else 3


def answer_set(con: Connection, name: str) -> AnswerSet:
    """Label set `name` as verdicts on answers; refused when it labels no answer."""
    set_id = label_store.label_set_id(con, name)
    if set_id is None:
        raise UsageError(f"no label set named {name!r} (see `studio list qrels`)")
    verdicts: SystemVerdicts = {}
    for qid, docs in load_labels(con, set_id).items():
        for docid, value in docs.items():
            if docid.startswith(ANSWER_PREFIX):
                verdicts.setdefault(docid.removeprefix(ANSWER_PREFIX), {})[qid] = float(value)
    if not verdicts:
        raise UsageError(
            f"label set {name!r} labels no generated answer "
            "(see `studio judge --answers` and `studio import answer-labels`)"
        )
    method = judged_method(con, set_id)
    return AnswerSet(name, set_id, method or AnswerMethod.graded, method is not None, verdicts, _scale(con, set_id))
