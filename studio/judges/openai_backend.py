"""Judges behind any OpenAI-compatible chat-completions server (vLLM, TGI, llama.cpp's server,
Ollama, hosted APIs): the way a judging job outgrows the laptop (docs/design.md#7-scale-beyond-one-laptop).

Only the standard library speaks HTTP, so the studio needs no SDK whose version drifts. Requests
run `concurrency` at a time and are yielded the moment each finishes, so the caller stores every
answer at once and a killed run loses nothing. Transient trouble (429, 5xx, timeouts, dropped
connections, malformed bodies) is retried with jittered exponential backoff, honouring
Retry-After; what still fails becomes a recorded failure with its reason — never an exception
that stops a 100k-pair run. The API key is read from the environment, sent only in the
Authorization header and redacted from every reason, so it can never reach the project file.

A label-space answer is constrained where the server allows it (`constrain`, see constraints.py):
small models then answer in the method's format instead of rambling, and the labels' distribution
is read from the log-probabilities at the label token.
"""

from __future__ import annotations

import contextlib
import email.utils
import http.client
import json
import math
import random
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from typing import Any

from studio.domain.errors import UsageError
from studio.domain.settings import OPENAI_API_KEY, OPENAI_BASE_URL, current_settings, read_secret
from studio.judges.backend import ChatRequest, ChatResult
from studio.judges.constraints import CONSTRAIN_MODES, constraint_fields, label_position, mode_for_server
from studio.judges.endpoints import refuse_credentials

DEFAULT_BASE_URL = "https://api.openai.com/v1"
# The environment variables the backend reads (studio.domain.settings): the key's (the default of
# `api_key_env`) and the server's.
API_KEY_ENV = OPENAI_API_KEY
BASE_URL_ENV = OPENAI_BASE_URL
TOP_LOGPROBS = 20  # the most the OpenAI API returns per token
MAX_RETRY_AFTER = 300.0  # a server asking for a longer pause is waited on for this long at most
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}
_KEY_LIKE = re.compile(r"\bsk-[A-Za-z0-9_\-*.]{4,}")


class CallError(Exception):
    """Why a call did not give an answer."""


class TransientError(CallError):
    """A failure worth another attempt; `wait` is the server's Retry-After, when it gave one."""

    def __init__(self, reason: str, wait: float | None = None) -> None:
        super().__init__(reason)
        self.wait = wait


class PermanentError(CallError):
    """A failure that another identical attempt would repeat (400, 401, 404, 501, …)."""


class OpenAIBackend:
    name = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = API_KEY_ENV,
        concurrency: int = 4,
        timeout: float = 60.0,
        max_retries: int = 5,
        seed: int = 0,
        temperature: float = 0.0,
        price_input: float | None = None,
        price_output: float | None = None,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        constrain: str = "none",
    ) -> None:
        """`price_input`/`price_output` are prices per million tokens (None: cost unknown);
        `backoff` is the first retry's pause, doubled per attempt up to `max_backoff`;
        `constrain` is one of CONSTRAIN_MODES (`auto` asks the server once, when first needed)."""
        self.model = model
        self.base_url = (base_url or current_settings().openai_base_url or DEFAULT_BASE_URL).rstrip("/")
        refuse_credentials(self.base_url, api_key_env)  # before any message could repeat the URL
        parts = urllib.parse.urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UsageError(f"the base URL must be http(s)://host[:port]/v1, not {self.base_url!r}")
        if concurrency < 1 or max_retries < 0 or timeout <= 0:
            raise UsageError("concurrency must be ≥ 1, retries ≥ 0 and the timeout > 0")
        if constrain not in CONSTRAIN_MODES:
            raise UsageError(f"unknown constraint {constrain!r} (known: {', '.join(CONSTRAIN_MODES)})")
        self.constrain = constrain
        self._constrain_lock = threading.Lock()
        self.host = parts.hostname
        self.url = self.base_url + "/chat/completions"
        self.api_key_env = api_key_env
        self._api_key = read_secret(api_key_env)  # absent: local servers need none
        self.concurrency = concurrency
        self.timeout = timeout
        self.max_retries = max_retries
        self.seed = seed
        self.temperature = temperature
        self.price_input = price_input
        self.price_output = price_output
        self.backoff = backoff
        self.max_backoff = max_backoff
        # Loopback servers are reached directly, whatever proxy the environment names.
        handlers = [urllib.request.ProxyHandler({})] if self.host in _LOOPBACK else []
        self._opener = urllib.request.build_opener(*handlers)
        self._closing = threading.Event()

    def __repr__(self) -> str:
        return f"OpenAIBackend(model={self.model!r}, base_url={self.base_url!r})"

    def params(self) -> dict[str, Any]:
        """Decoding parameters only: the endpoint and the key do not change what a model answers.
        The constraint does; without one the parameters (and call keys) are those of before."""
        mode = self.constraint()
        return {"temperature": self.temperature, "seed": self.seed} | ({} if mode == "none" else {"constrain": mode})

    def constraint(self) -> str:
        """The constraint mode in use: the one given, or for `auto` what the server's model list
        says it understands (asked once; `none` when the list cannot be had or is not recognised)."""
        with self._constrain_lock:
            if self.constrain == "auto":
                mode = mode_for_server(self.host.lower(), None)  # some hosts are known by name
                if mode == "none":
                    with contextlib.suppress(CallError):  # no model list: an unknown server
                        mode = mode_for_server(self.host.lower(), self._get("/models"))
                self.constrain = mode
            return self.constrain

    def close(self) -> None:
        self._closing.set()  # pending backoff pauses end at once

    def body(self, request: ChatRequest) -> dict[str, Any]:
        """The JSON body of one chat completion (the same for live calls and Batch files)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": request.as_json(),
            "max_tokens": request.max_tokens,
            "temperature": self.temperature if request.temperature is None else request.temperature,
            "seed": self.seed if request.seed is None else request.seed,
        }
        if request.labels:
            body |= {"logprobs": True, "top_logprobs": TOP_LOGPROBS}
        return body | constraint_fields(self.constraint(), request)

    def complete(self, requests: Sequence[ChatRequest]) -> Iterator[tuple[int, ChatResult]]:
        self._closing.clear()
        pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="openai")
        try:
            futures: dict[Future[ChatResult], int] = {
                pool.submit(self._call, request): index for index, request in enumerate(requests)
            }
            for future in as_completed(futures):
                yield futures[future], future.result()
        finally:  # a consumer that stops early cancels what has not started
            self._closing.set()
            pool.shutdown(wait=False, cancel_futures=True)

    # -- one request -----------------------------------------------------------------------

    def _call(self, request: ChatRequest) -> ChatResult:
        """One request to its outcome; `seconds` is the wall time until then, retries included."""
        start = time.perf_counter()
        try:
            result = self._with_retries(request)
        except Exception as error:  # a worker hands back a result, never raises
            result = ChatResult(None, error=self.redact(f"{type(error).__name__}: {error}"))
        result.seconds = time.perf_counter() - start
        return result

    def _with_retries(self, request: ChatRequest) -> ChatResult:
        data = json.dumps(self.body(request), ensure_ascii=False).encode("utf-8")
        for attempt in range(self.max_retries + 1):
            try:
                return self.result_from_body(self._send(self.url, data), request)
            except PermanentError as error:
                return ChatResult(None, error=self.redact(str(error)))
            except TransientError as error:
                if attempt == self.max_retries or self._closing.is_set():
                    tries = f"{attempt + 1} attempt{'s' if attempt else ''}"
                    return ChatResult(None, error=self.redact(f"{error} (gave up after {tries})"))
                self._closing.wait(self._pause(attempt, error.wait))
        raise AssertionError("unreachable")

    def _pause(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, MAX_RETRY_AFTER)
        return min(self.max_backoff, self.backoff * 2.0**attempt) * random.uniform(0.5, 1.0)

    def _get(self, path: str) -> Any:
        """GET base_url + path as JSON, transient failures retried as a call's are."""
        for attempt in range(self.max_retries + 1):
            try:
                return self._send(self.base_url + path, None)
            except TransientError as error:
                if attempt == self.max_retries or self._closing.is_set():
                    raise
                self._closing.wait(self._pause(attempt, error.wait))
        raise AssertionError("unreachable")

    def _send(self, url: str, data: bytes | None) -> Any:
        """POST `data` (GET when None) to `url`; the answer's JSON."""
        headers = {"Accept": "application/json", "User-Agent": "relevance-assessment-studio"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        http_request = urllib.request.Request(url, data=data, headers=headers, method="GET" if data is None else "POST")
        try:
            with self._opener.open(http_request, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as error:
            reason = f"HTTP {error.code}: {_error_message(error)}"
            if error.code in (408, 429) or (error.code >= 500 and error.code != 501):  # 501: not implemented
                raise TransientError(reason, _retry_after(error.headers)) from None
            raise PermanentError(reason) from None
        except (OSError, http.client.HTTPException) as error:  # refused, reset, timed out, cut short
            cause = getattr(error, "reason", error)
            if isinstance(cause, TimeoutError) or isinstance(error, TimeoutError):
                raise TransientError(f"timed out after {self.timeout:g} s") from None
            raise TransientError(f"connection failed: {cause}") from None
        try:
            return json.loads(raw)
        except ValueError:
            raise TransientError(f"malformed response: not JSON ({_snippet(raw)})") from None

    def result_from_body(self, body: Any, request: ChatRequest) -> ChatResult:
        """A chat-completion body as a result (also read from Batch output files); raises
        TransientError when the body is not a completion, PermanentError when it holds no text."""
        choices = body.get("choices") if isinstance(body, dict) else None
        if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
            detail = body.get("error") if isinstance(body, dict) else None
            raise TransientError(f"malformed response: no choices{f' ({detail})' if detail else ''}")
        choice = choices[0]
        text = (choice.get("message") or {}).get("content")
        if not isinstance(text, str):
            raise PermanentError(f"the answer holds no text (finish_reason {choice.get('finish_reason')!r})")
        usage = body.get("usage") or {}
        prompt_tokens = int(usage.get("prompt_tokens") or 0)
        completion_tokens = int(usage.get("completion_tokens") or 0)
        cost = None
        if self.price_input is not None or self.price_output is not None:
            cost = (prompt_tokens * (self.price_input or 0.0) + completion_tokens * (self.price_output or 0.0)) / 1e6
        return ChatResult(
            text,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            label_probs=label_probs(text, choice.get("logprobs"), request),
            cost=cost,
        )

    def redact(self, text: str) -> str:
        """`text` with the API key (and anything shaped like one) blanked out."""
        if self._api_key:
            text = text.replace(self._api_key, "***")
        return _KEY_LIKE.sub("sk-***", text)


def label_probs(text: str, logprobs: Any, request: ChatRequest) -> dict[str, float] | None:
    """The labels' probabilities at the answer's label token, renormalised over the labels: the
    token covering the label's first character (constraints.label_position). None when the
    server sent no log-probabilities or none of the alternatives is a label.

    Servers differ in whether the alternatives are the model's own distribution (llama-cpp-python:
    before the grammar masks any token) or the constrained one; renormalised over the labels, both
    give the same distribution when the constraint allows exactly the labels there."""
    if not request.labels or not isinstance(logprobs, dict) or not isinstance(logprobs.get("content"), list):
        return None
    at = label_position(text, request)
    if at is None:
        return None
    offset = 0
    for token in logprobs["content"]:
        if not isinstance(token, dict):
            return None
        offset += len(str(token.get("token", "")))
        if offset > at:
            return _label_distribution(token.get("top_logprobs"), request.labels)
    return None


def _label_distribution(alternatives: Any, labels: tuple[str, ...]) -> dict[str, float] | None:
    by_text = {label.lower(): label for label in labels}
    mass: dict[str, float] = {}
    for alternative in alternatives if isinstance(alternatives, list) else []:
        if not isinstance(alternative, dict):
            continue
        # A token may carry the space or the JSON quote before the label (` 2`, `"2`).
        label = by_text.get(str(alternative.get("token", "")).strip().strip("\"'").lower())
        logprob = alternative.get("logprob")
        if label is not None and isinstance(logprob, int | float):
            mass[label] = mass.get(label, 0.0) + math.exp(logprob)
    total = sum(mass.values())
    if total <= 0:
        return None
    return {label: mass.get(label, 0.0) / total for label in labels}


def _retry_after(headers: Any) -> float | None:
    """The pause a server asks for: Retry-After in seconds or as an HTTP date (or OpenAI's
    retry-after-ms)."""
    milliseconds = headers.get("retry-after-ms")
    if milliseconds:
        try:
            return max(0.0, float(milliseconds) / 1000)
        except ValueError:
            pass
    value = headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _error_message(error: urllib.error.HTTPError) -> str:
    """The server's own words: OpenAI's {"error": {"message": …}}, else the body's start."""
    try:
        raw = error.read()
    except OSError:
        return str(error.reason)
    try:
        found = json.loads(raw)
    except ValueError:
        return _snippet(raw) or str(error.reason)
    detail = found.get("error", found) if isinstance(found, dict) else found
    if isinstance(detail, dict):
        detail = detail.get("message", detail)
    return _snippet(str(detail).encode())


def _snippet(raw: bytes, size: int = 200) -> str:
    text = raw.decode("utf-8", errors="replace").strip()
    return text if len(text) <= size else text[:size] + "…"
