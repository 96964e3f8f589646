"""A real, threaded OpenAI-compatible chat-completions server on 127.0.0.1 for offline tests.

It answers deterministically (`##final score: N`, N from a hash of the prompt), with usage and,
when asked, log-probabilities, and it can be scripted to misbehave the way real servers do:
latency, 429 with or without Retry-After, 5xx, a hang past the client's timeout, a body that is
not JSON, a 200 without choices, 400/401 errors. It records every request (headers included)
and the most requests it ever had in flight, so tests can check concurrency for real.

    with FakeOpenAIServer() as server:
        server.script(Fault.status(429, retry_after=0.2))  # the next request gets this
        backend = OpenAIBackend("fake", base_url=server.base_url)
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any


@dataclass(frozen=True)
class Fault:
    """How to answer one request. The defaults answer normally."""

    status: int = 200
    latency: float = 0.0  # seconds to wait before answering
    retry_after: str | None = None  # a Retry-After header value
    message: str = ""  # the error message of a non-200 answer
    raw: bytes | None = None  # a body sent as is (e.g. not JSON)
    body: dict[str, Any] | None = None  # a JSON body sent instead of the completion
    hang: float = 0.0  # wait this long (or until the server stops), then drop the request
    echo_key: bool = False  # put the Authorization header into the error message

    @classmethod
    def error(
        cls, status: int, message: str = "", *, retry_after: float | None = None, echo_key: bool = False
    ) -> Fault:
        return cls(
            status=status,
            message=message or f"fake error {status}",
            retry_after=None if retry_after is None else f"{retry_after:g}",
            echo_key=echo_key,
        )

    @classmethod
    def malformed(cls) -> Fault:
        return cls(raw=b"<html>upstream gateway hiccup</html>")

    @classmethod
    def no_choices(cls) -> Fault:
        return cls(body={"id": "x", "object": "chat.completion", "choices": []})

    @classmethod
    def hung(cls, seconds: float) -> Fault:
        return cls(hang=seconds)


def grade_of(messages: Any) -> int:
    """The deterministic grade the fake model gives a prompt."""
    digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).digest()
    return digest[0] % 4


def default_answer(body: dict[str, Any]) -> str:
    return f"##final score: {grade_of(body.get('messages'))}"


def tokens_of(text: str) -> list[str]:
    """A crude tokenizer: each word with the whitespace before it (`##final`, ` score:`, ` 2`)."""
    tokens: list[str] = []
    for word in text.split(" "):
        tokens.append(word if not tokens else " " + word)
    return tokens


def completion(body: dict[str, Any], text: str, with_logprobs: bool) -> dict[str, Any]:
    """A chat-completion body; with log-probabilities the label token puts 0.7 on the answer,
    0.2 spread over the other grades and 0.1 on a token that is no label."""
    prompt_words = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
    tokens = tokens_of(text)
    choice: dict[str, Any] = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
    if with_logprobs and body.get("logprobs"):
        content = []
        for token in tokens:
            top = [{"token": token, "logprob": 0.0}]
            if token.strip().isdigit():
                grades = [g for g in "0123" if g != token.strip()]
                top = (
                    [{"token": token, "logprob": _log(0.7)}]
                    + [{"token": " " + g, "logprob": _log(0.2 / 3)} for g in grades]
                    + [{"token": " The", "logprob": _log(0.1)}]
                )
            content.append({"token": token, "logprob": top[0]["logprob"], "top_logprobs": top})
        choice["logprobs"] = {"content": content}
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "model": body.get("model"),
        "choices": [choice],
        "usage": {
            "prompt_tokens": prompt_words,
            "completion_tokens": len(tokens),
            "total_tokens": prompt_words + len(tokens),
        },
    }


def _log(p: float) -> float:
    return math.log(p)


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: Any
    started: float
    finished: float = 0.0
    fault: Fault = field(default_factory=Fault)


class _Server(ThreadingHTTPServer):
    # The default listen backlog of 5 drops connection attempts beyond it, and the client
    # retries them only after a one-second SYN timeout: a concurrency test would measure that.
    request_queue_size = 128
    daemon_threads = True


class FakeOpenAIServer:
    """The server; use it as a context manager. `script()` queues faults for the next requests
    (in arrival order); `rule` picks a fault from the request body (None: answer normally)."""

    def __init__(
        self,
        *,
        latency: float = 0.0,
        logprobs: bool = True,
        answer: Callable[[dict[str, Any]], str] = default_answer,
        owned_by: str | None = None,
    ) -> None:
        """`owned_by`: what GET /v1/models names as the models' owner (None: no model list, 404)."""
        self.latency = latency
        self.owned_by = owned_by
        self.model_lists = 0  # GET /v1/models requests
        self.logprobs = logprobs
        self.answer = answer
        self.rule: Callable[[dict[str, Any]], Fault | None] | None = None
        self.requests: list[Received] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._faults: deque[Fault] = deque()
        self._lock = threading.Lock()
        self.stopping = threading.Event()
        self._httpd = _Server(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, *faults: Fault) -> None:
        with self._lock:
            self._faults.extend(faults)

    def start(self) -> FakeOpenAIServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()

    def _next_fault(self, body: Any) -> Fault:
        with self._lock:
            if self._faults:
                return self._faults.popleft()
        found = self.rule(body) if self.rule and isinstance(body, dict) else None
        return found or Fault()

    def _enter(self, received: Received) -> None:
        with self._lock:
            self.requests.append(received)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self, received: Received) -> None:
        """Before the answer is written: a client cannot send its next request any earlier, so
        `max_in_flight` counts only real overlap."""
        with self._lock:
            if not received.finished:
                self.in_flight -= 1
                received.finished = time.perf_counter()


def _handler(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            with server._lock:
                server.model_lists += 1
            if self.path != "/v1/models" or server.owned_by is None:
                payload, status = json.dumps({"error": {"message": f"no route {self.path}"}}).encode(), 404
            else:
                models = {"object": "list", "data": [{"id": "fake", "object": "model", "owned_by": server.owned_by}]}
                payload, status = json.dumps(models).encode(), 200
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body: Any = json.loads(raw)
            except ValueError:
                body = raw
            self.received = received = Received(self.path, dict(self.headers.items()), body, time.perf_counter())
            server._enter(received)
            try:
                received.fault = fault = server._next_fault(body)
                self._answer(fault, body)
            finally:
                server._leave(received)

        def _answer(self, fault: Fault, body: Any) -> None:
            wait = server.latency + fault.latency
            if wait:
                server.stopping.wait(wait)
            if fault.hang:
                server.stopping.wait(fault.hang)
                self.close_connection = True
                return
            if self.path != "/v1/chat/completions":
                return self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}).encode())
            if fault.status != 200:
                message = fault.message
                if fault.echo_key:
                    message += f" (got {self.headers.get('Authorization', '')})"
                headers = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
                return self._send(fault.status, json.dumps({"error": {"message": message}}).encode(), headers)
            if fault.raw is not None:
                return self._send(200, fault.raw, {"Content-Type": "text/html"})
            if fault.body is not None:
                return self._send(200, json.dumps(fault.body).encode())
            if not isinstance(body, dict):
                return self._send(400, b'{"error": {"message": "the body is not JSON"}}')
            answer = completion(body, server.answer(body), server.logprobs)
            return self._send(200, json.dumps(answer).encode())

        def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
            server._leave(self.received)
            self.send_response(status)
            merged = {"Content-Type": "application/json"} | (headers or {})
            for name, value in merged.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler
