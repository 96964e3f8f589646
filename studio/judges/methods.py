"""Assessment methods: which prompt, which labels, how an answer is read.

Pointwise methods grade one (topic, document) pair per call. The pairwise method asks which of
two passages answers better, in both orders; `pairwise_scores` turns the answers into wins.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from studio.domain.errors import UsageError
from studio.judges.backend import ChatRequest
from studio.judges.parsing import (
    Parsed,
    parse_assignments,
    parse_binary,
    parse_grade,
    parse_preference,
    parse_rating,
    parse_umbrela,
    structured_answer,
)
from studio.judges.prompts import PromptTemplate, load_prompt


@dataclass(frozen=True)
class Method:
    name: str
    prompt: PromptTemplate
    labels: tuple[str, ...]
    values: tuple[float, ...]
    answer_prefix: str
    parse: Callable[[str], Parsed]
    max_tokens: int = 64
    pairwise: bool = False
    item_kind: str | None = None  # rubric methods grade once per bank item of this kind
    window: int | None = None  # items per call, for methods that label a list of items at once
    parse_window: Callable[[str, int], list[Parsed]] | None = None
    # The derived score (studio.services.derive.SCORES) a rubric judge writes into its own label set.
    own_score: str | None = None
    item_labels: tuple[str, ...] = ()  # a window method's label space per item

    def request(self, subject: tuple[str, ...], **texts: str) -> ChatRequest:
        unit = "preference" if self.pairwise else "window" if self.window else "item" if self.item_kind else "pair"
        return ChatRequest(
            tuple(self.prompt.render(**texts)),
            max_tokens=self.max_tokens,
            labels=self.labels,
            answer_prefix=self.answer_prefix,
            subject=subject,
            label_values=self.values,
            unit=unit,
            item_labels=self.item_labels,
        )

    def value_of(self, label: str) -> float:
        return self.values[self.labels.index(label)]


def _umbrela(prompt: PromptTemplate) -> Method:
    return Method(
        "umbrela", prompt, ("0", "1", "2", "3"), (0.0, 1.0, 2.0, 3.0), "##final score: ", parse_umbrela, max_tokens=128
    )


def _graded(prompt: PromptTemplate) -> Method:
    # A bare 0–3 grade (the prompt-sensitivity study's graded prompts answer with the number alone).
    return Method("graded", prompt, ("0", "1", "2", "3"), (0.0, 1.0, 2.0, 3.0), "", parse_grade, max_tokens=8)


def _binary(prompt: PromptTemplate) -> Method:
    return Method("binary", prompt, ("Yes", "No"), (1.0, 0.0), "", parse_binary, max_tokens=8)


def _pairwise(prompt: PromptTemplate) -> Method:
    return Method("pairwise", prompt, ("1", "2"), (1.0, 2.0), "", parse_preference, max_tokens=8, pairwise=True)


def _exam_question(prompt: PromptTemplate) -> Method:
    return Method(
        "exam-question",
        prompt,
        tuple("012345"),
        tuple(float(g) for g in range(6)),
        "",
        parse_rating,
        max_tokens=16,
        item_kind="question",
        own_score="rubric-graded",
    )


def _exam_nugget(prompt: PromptTemplate) -> Method:
    return Method(
        "exam-nugget",
        prompt,
        tuple("012345"),
        tuple(float(g) for g in range(6)),
        "",
        parse_rating,
        max_tokens=16,
        item_kind="nugget",
        own_score="rubric-graded",
    )


def _nugget_assign(prompt: PromptTemplate) -> Method:
    return Method(
        "nugget-assign",
        prompt,
        (),
        (),
        "",
        lambda text: Parsed(None, "a window method"),
        max_tokens=200,
        item_kind="nugget",
        window=10,
        parse_window=parse_assignments,
        own_score="nugget-all",
        item_labels=("support", "partial_support", "not_support"),
    )


def _subtopic(prompt: PromptTemplate) -> Method:
    # Binary per subtopic (Arabzadeh & Clarke 2024); the document's score is the fraction satisfied.
    return Method(
        "subtopic",
        prompt,
        ("Yes", "No"),
        (1.0, 0.0),
        "",
        parse_binary,
        max_tokens=8,
        item_kind="subtopic",
        own_score="subtopic",
    )


METHODS: dict[str, tuple[str, Callable[[PromptTemplate], Method]]] = {
    "umbrela": ("umbrela", _umbrela),
    "binary": ("binary", _binary),
    "graded": ("graded-human", _graded),
    "pairwise": ("pairwise", _pairwise),
    "exam-question": ("exam-question", _exam_question),
    "exam-nugget": ("exam-nugget", _exam_nugget),
    "nugget-assign": ("nugget-assign", _nugget_assign),
    "subtopic": ("subtopic", _subtopic),
}


def get_method(name: str, prompt: str | None = None) -> Method:
    """A method with its bundled prompt, or with a custom prompt file or folder."""
    if name not in METHODS:
        raise UsageError(f"unknown method {name!r} (known: {', '.join(METHODS)})")
    return method_with_template(name, load_prompt(prompt or METHODS[name][0]))


def method_with_template(name: str, template: PromptTemplate) -> Method:
    """A method asking with `template` (a prompt held as data rather than a file), its placeholders checked."""
    if name not in METHODS:
        raise UsageError(f"unknown method {name!r} (known: {', '.join(METHODS)})")
    method = _reads_structured_answers(_answer_space(METHODS[name][1](template), template))
    if method.pairwise:
        needed = {"query", "passage_a", "passage_b"}
    elif method.window is not None:
        needed = {"query", "context", "nuggets", "num_nuggets"}
    elif method.item_kind == "subtopic":
        needed = {"query", "subtopic", "passage"}
    elif method.item_kind is not None:
        needed = {method.item_kind, "passage"}
    else:
        needed = {"query", "passage"}
    if not needed <= template.placeholders():
        raise UsageError(f"prompt {template.name} must contain {', '.join('{' + n + '}' for n in sorted(needed))}")
    return method


def _answer_space(method: Method, template: PromptTemplate) -> Method:
    """A template may ask for other answer words than the method's (e.g. 1/0 instead of Yes/No):
    its meta.json then names them (`answer_labels`, `answer_values`, `answer_prefix`)."""
    labels = template.meta.get("answer_labels")
    if not labels:
        return method
    values = template.meta.get("answer_values") or list(range(len(labels)))
    if len(values) != len(labels):
        raise UsageError(f"prompt {template.name}: answer_labels and answer_values differ in length")
    return replace(
        method,
        labels=tuple(str(label) for label in labels),
        values=tuple(float(v) for v in values),
        answer_prefix=str(template.meta.get("answer_prefix", method.answer_prefix)),
    )


def _reads_structured_answers(method: Method) -> Method:
    """The method's parsers, reading a schema-constrained JSON answer as the text it stands for."""
    parse, parse_window, prefix = method.parse, method.parse_window, method.answer_prefix

    def read(text: str) -> Parsed:
        return parse(structured_answer(text, prefix))

    def read_window(text: str, count: int) -> list[Parsed]:
        assert parse_window is not None
        return parse_window(structured_answer(text, prefix), count)

    return replace(method, parse=read, parse_window=read_window if parse_window is not None else None)


PREFERENCE_PAIRS_PER_DOC = 7  # P of Clarke et al. 2021: fewer than P·n judgments per topic


def sample_pairs(
    docids: list[str], *, per_doc: int = PREFERENCE_PAIRS_PER_DOC, seed: int = 0, qid: str = ""
) -> list[tuple[str, str]]:
    """Unordered document pairs to compare: all of them when that is at most P·n, else each
    document paired with P random others (at most P·n pairs, every document compared)."""
    n = len(docids)
    if n * (n - 1) // 2 <= per_doc * n:
        return [(docids[i], docids[j]) for i in range(n) for j in range(i + 1, n)]
    rng = random.Random(f"{seed}/{qid}")
    chosen: set[tuple[str, str]] = set()
    for i, docid in enumerate(docids):
        others = [j for j in range(n) if j != i]
        for j in rng.sample(others, per_doc // 2 + per_doc % 2):
            chosen.add((docid, docids[j]) if i < j else (docids[j], docid))
    return sorted(chosen)


Outcome = tuple[str, str, float | None, float | None]


def pairwise_scores(docids: Iterable[str], outcomes: Iterable[Outcome]) -> dict[str, float]:
    """Wins per document: (a, b, answer with a first, answer with b first); 1/2 name the passage
    shown first/second. The same winner in both orders is a win; anything else a tie (ignored)."""
    wins = {docid: 0.0 for docid in docids}
    for a, b, a_first, b_first in outcomes:
        if a_first == 1.0 and b_first == 2.0:
            wins[a] = wins.get(a, 0.0) + 1
        elif a_first == 2.0 and b_first == 1.0:
            wins[b] = wins.get(b, 0.0) + 1
    return wins
