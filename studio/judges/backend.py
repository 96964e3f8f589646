"""What every backend takes and gives, and the content address of a call."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class ChatRequest:
    """One model call. `answer_prefix` + one of `labels` is the answer format a backend may
    enforce by constrained decoding; `subject` names the judged unit (not part of the key)."""

    messages: tuple[tuple[str, str], ...]
    max_tokens: int = 64
    labels: tuple[str, ...] = ()
    answer_prefix: str = ""
    subject: tuple[str, ...] = field(default=(), compare=False)
    label_values: tuple[float, ...] = field(default=(), compare=False)
    # pair (qid, docid) | preference (qid, a, b) | item (qid, docid, item) | window (qid, docid, *items)
    unit: str = field(default="pair", compare=False)
    # A window's answer is a list with one of these labels per item, which a backend may enforce.
    item_labels: tuple[str, ...] = ()
    # One of several sampled answers (`studio judge --samples K`): its seed and temperature, which
    # the caller puts in the call key's parameters (None: the backend's own).
    seed: int | None = field(default=None, compare=False)
    temperature: float | None = field(default=None, compare=False)

    def as_json(self) -> list[dict[str, str]]:
        return [{"role": role, "content": content} for role, content in self.messages]


@dataclass
class ChatResult:
    """What came back: text (None when the call failed for good, with `error` saying why)."""

    text: str | None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    label_probs: dict[str, float] | None = None
    error: str | None = None
    cost: float | None = None


class Backend(Protocol):
    name: str
    model: str

    def params(self) -> dict[str, Any]:
        """Decoding parameters that change what the model answers (part of the cache key)."""
        ...

    def complete(self, requests: Sequence[ChatRequest]) -> Iterator[tuple[int, ChatResult]]:
        """Answer the requests, yielding (index, result) as each finishes (in any order)."""
        ...

    def close(self) -> None: ...


def call_key(backend: str, model: str, params: dict[str, Any], request: ChatRequest) -> str:
    """sha256 of everything that decides the answer: a cached call is never made twice.

    A model's answer depends on the prompt alone; the simulated judge's depends on which pair
    it is asked about, so for it the pair is part of the key.
    """
    fields: dict[str, Any] = {
        "backend": backend,
        "model": model,
        "params": params,
        "messages": request.as_json(),
        "max_tokens": request.max_tokens,
        "labels": list(request.labels),
        "answer_prefix": request.answer_prefix,
    }
    if request.item_labels:
        fields["item_labels"] = list(request.item_labels)
    if backend == "simulated":
        fields["subject"] = list(request.subject)
    payload = json.dumps(fields, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()
