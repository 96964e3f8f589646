"""A simulated judge: a seeded noisy copy of a reference label set with a chosen agreement.

Each label is kept with probability κ and otherwise drawn from the reference's own label
distribution, so the expected Cohen's κ with the reference is κ. It answers in the method's
label space, so it exercises the whole judging path and answers planning questions such as
"what would Kendall τ be with a judge of κ = 0.4?". Asked for a preference, it picks the passage
its noisy grades favour, except that with probability `position_bias` it picks the one shown
first whatever they say (the position bias of LLM judges, set rather than measured).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from studio.judges.backend import ChatRequest, ChatResult


class SimulatedBackend:
    name = "simulated"

    def __init__(
        self,
        reference_name: str,
        reference: Mapping[str, Mapping[str, float]],
        *,
        kappa: float = 0.6,
        seed: int = 0,
        relevant: float | None = None,
        position_bias: float = 0.0,
    ) -> None:
        if not 0.0 <= kappa <= 1.0:
            raise ValueError("kappa must lie in [0, 1]")
        if not 0.0 <= position_bias <= 1.0:
            raise ValueError("position_bias must lie in [0, 1]")
        self.position_bias = position_bias
        self.model = f"noisy-copy-of-{reference_name}"
        self.reference = reference
        self.kappa = kappa
        self.seed = seed
        self.relevant = relevant  # a binary answer's level on the reference's scale (None: nearest label)
        # Sorted: the reference arrives in no fixed order, and a draw from it must be reproducible.
        self.marginal = sorted(g for grades in reference.values() for g in grades.values()) or [0.0]

    def params(self) -> dict[str, Any]:
        # A judge without position bias or a relevance level keeps the parameters (and so the call
        # keys) it always had: earlier runs' cache keys stay.
        level = {} if self.relevant is None else {"relevant": self.relevant}
        bias = {"position_bias": self.position_bias} if self.position_bias else {}
        return {"kappa": self.kappa, "seed": self.seed, **level, **bias}

    def close(self) -> None:
        pass

    def _rng(self, subject: tuple[str, ...], seed: int | None = None) -> random.Random:
        digest = hashlib.sha256(repr((self.seed if seed is None else seed, subject)).encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big"))

    def noisy_grade(self, qid: str, docid: str, seed: int | None = None) -> float:
        """The pair's label; another `seed` (a sampled answer's) draws another noisy copy."""
        rng = self._rng((qid, docid), seed)
        grade = self.reference.get(qid, {}).get(docid)
        if grade is None or rng.random() >= self.kappa:
            grade = rng.choice(self.marginal)
        return grade

    def complete(self, requests: Sequence[ChatRequest]) -> Iterator[tuple[int, ChatResult]]:
        for index, request in enumerate(requests):
            yield index, self._answer(request)

    def _answer(self, request: ChatRequest) -> ChatResult:
        if request.unit == "window":
            return ChatResult(repr(self._assignments(request.subject)), completion_tokens=1)
        if not request.labels or not request.subject:
            return ChatResult(None, error="the simulated judge answers only label questions about known pairs")
        values = request.label_values or tuple(float(i) for i in range(len(request.labels)))
        if request.unit == "preference":  # (qid, first shown, second shown)
            qid, first, second = request.subject
            a, b = self.noisy_grade(qid, first), self.noisy_grade(qid, second)
            winner = 0 if a > b else 1 if b > a else self._rng(request.subject).randrange(2)
            if self.position_bias and self._rng(("position", *request.subject)).random() < self.position_bias:
                winner = 0
            label = request.labels[winner]
        else:
            grade = self.noisy_grade(request.subject[0], request.subject[1], request.seed)
            if request.unit == "item":  # a bank item: the document's grade on the item scale
                grade = grade / max(max(self.marginal), 1.0) * max(values)
            elif self.relevant is not None and len(values) == 2:  # binary: relevant where the report says so
                grade = max(values) if grade >= self.relevant else min(values)
            label = min(zip(request.labels, values, strict=True), key=lambda lv: (abs(lv[1] - grade), -lv[1]))[0]
        return ChatResult(request.answer_prefix + label, completion_tokens=1)

    def _assignments(self, subject: tuple[str, ...]) -> list[str]:
        """Nugget labels for a window: each nugget supported with a chance that grows with the
        document's (noisy) grade, partially supported half as often as not."""
        qid, docid, *items = subject
        share = self.noisy_grade(qid, docid) / max(max(self.marginal), 1.0)
        labels = []
        for item in items:
            draw = self._rng((qid, docid, item)).random()
            labels.append(
                "support" if draw < share else "partial_support" if draw < share + (1 - share) / 3 else "not_support"
            )
        return labels
