"""Dataclasses for topics, documents, runs, labels, generated answers and test-bank items."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import StrEnum

from studio.domain.choices import Importance, ItemKind


@dataclass(frozen=True, slots=True)
class Topic:
    qid: str
    text: str


@dataclass(frozen=True, slots=True)
class Document:
    docid: str
    text: str
    title: str | None = None


@dataclass(frozen=True, slots=True)
class RunRow:
    """One ranked document of a TREC run (the rank column is kept but never used to rank)."""

    qid: str
    docid: str
    rank: int
    score: float


@dataclass(frozen=True, slots=True)
class QrelsRow:
    """One relevance label; grades may be fractional (nugget-derived label sets)."""

    qid: str
    docid: str
    grade: float


@dataclass(frozen=True, slots=True)
class Response:
    """A generated (RAG) answer of one system to one topic."""

    qid: str
    system: str
    text: str
    citations: tuple[str, ...] = ()


class LabelSetKind(StrEnum):
    """Where a label set's grades come from."""

    HUMAN = "human"
    LLM = "llm"
    DERIVED = "derived"
    SIMULATED = "simulated"


ITEM_KINDS = tuple(kind.value for kind in ItemKind)
# Generated answers are judged as documents named answer/<system>.
ANSWER_PREFIX = "answer/"
IMPORTANCE_LEVELS = tuple(level.value for level in Importance)


def item_text_hash(text: str) -> str:
    """md5 of an item's text: what a grade was given for (an edit changes it, a re-weight not)."""
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def rubric_item_id(qid: str, text: str) -> str:
    """The Rubric workbench's item id convention: `qid/md5(text)`."""
    return f"{qid}/{item_text_hash(text)}"


@dataclass(frozen=True, slots=True)
class BankItem:
    """An exam question, a nugget or a subtopic (facet) of a test bank."""

    qid: str
    item_id: str
    kind: str  # one of ITEM_KINDS
    text: str
    importance: str | None = None  # "vital" | "okay" for nuggets
    gold_answers: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.kind not in ITEM_KINDS:
            raise ValueError(f"item kind must be one of {ITEM_KINDS}, not {self.kind!r}")
        if self.importance is not None and self.importance not in IMPORTANCE_LEVELS:
            raise ValueError(f"importance must be one of {IMPORTANCE_LEVELS}, not {self.importance!r}")
