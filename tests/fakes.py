"""Scripted backends: stand-ins for a model that answer every request by a rule of the test.

    from fakes import ScriptedBackend

    backend = ScriptedBackend("##final score: 2")                      # one answer to everything
    backend = ScriptedBackend(lambda request: grade_of(request))       # an answer per request
    backend = ScriptedBackend(ChatResult(None, error="HTTP 500"))      # a call that failed for good
    backend = ScriptedBackend(reply, name="rambler", model="rambler-1")  # what the run records

A reply is a text, a whole `ChatResult` (a failure, label probabilities, token counts), or a
function of the `ChatRequest` giving either. The backend keeps every request that reached it,
in order (`backend.requests`, `backend.calls`), so a test can check what was asked and that a
cached run asks nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from studio.judges.backend import ChatRequest, ChatResult

Answer = str | ChatResult
Reply = Answer | Callable[[ChatRequest], Answer]


class ScriptedBackend:
    """A backend (studio.judges.backend.Backend) answering each request with `reply`.

    `name`, `model` and `params` go into the call key and the judge run, as a real backend's
    would; a text answer is given 10 prompt and 3 completion tokens.
    """

    def __init__(
        self,
        reply: Reply,
        *,
        name: str = "scripted",
        model: str = "scripted-model",
        params: dict[str, Any] | None = None,
    ) -> None:
        self.reply = reply
        self.name = name
        self.model = model
        self._params = dict(params or {})
        self.requests: list[ChatRequest] = []

    @property
    def calls(self) -> int:
        """How many requests reached the backend (cache hits never do)."""
        return len(self.requests)

    def params(self) -> dict[str, Any]:
        return dict(self._params)

    def answer(self, request: ChatRequest) -> ChatResult:
        answer = self.reply(request) if callable(self.reply) else self.reply
        if isinstance(answer, ChatResult):
            return replace(answer)  # a copy: one scripted result may answer many requests
        return ChatResult(answer, prompt_tokens=10, completion_tokens=3)

    def complete(self, requests: Sequence[ChatRequest]) -> Iterator[tuple[int, ChatResult]]:
        for index, request in enumerate(requests):
            self.requests.append(request)
            yield index, self.answer(request)

    def close(self) -> None:
        pass


def prompt_of(request: ChatRequest) -> str:
    """The text of the request's last message: the rendered user prompt a rule reads."""
    return request.messages[-1][1]


def passage_number(request: ChatRequest) -> int:
    """The number ending the judged passage's docid (`p1001-07` -> 7) in the sample project."""
    return int(request.subject[1].rsplit("-", 1)[1])
