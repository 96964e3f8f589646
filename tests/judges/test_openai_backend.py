"""The openai backend against a real local HTTP server that misbehaves on purpose.

Transient faults must be retried (and Retry-After honoured), permanent ones recorded with their
reason without stopping the run, concurrency must really overlap requests, results must arrive
as they finish, and the API key must reach the server and nothing else — least of all the
project file.
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import duckdb
import pytest
from fake_openai_server import FakeOpenAIServer, Fault, grade_of
from helpers import cli

from studio import Project
from studio.judges.backend import ChatRequest, ChatResult
from studio.judges.openai_backend import OpenAIBackend, label_probs

SECRET = "sk-test-SECRET-123"
LABELS = ("0", "1", "2", "3")
PREFIX = "##final score: "


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def make_backend(server: FakeOpenAIServer, **options: Any) -> OpenAIBackend:
    settings: dict[str, Any] = {"concurrency": 1, "timeout": 5.0, "max_retries": 3, "backoff": 0.01}
    return OpenAIBackend("fake", base_url=server.base_url, **(settings | options))


def request(i: int, labels: tuple[str, ...] = LABELS) -> ChatRequest:
    return ChatRequest(
        (("system", "You judge."), ("user", f"query {i}: passage {i}")),
        max_tokens=16,
        labels=labels,
        answer_prefix=PREFIX if labels else "",
    )


def run_all(backend: OpenAIBackend, requests: list[ChatRequest]) -> dict[int, ChatResult]:
    results: dict[int, ChatResult] = {}
    for index, result in backend.complete(requests):
        assert index not in results
        results[index] = result
    backend.close()
    assert sorted(results) == list(range(len(requests)))
    return results


def test_answer_usage_logprobs_and_the_key_header(server: FakeOpenAIServer) -> None:
    backend = make_backend(server, price_input=1.0, price_output=2.0)
    result = run_all(backend, [request(0)])[0]
    sent = server.requests[0]
    grade = grade_of(sent.body["messages"])
    assert result.error is None and result.text == f"{PREFIX}{grade}"
    assert result.prompt_tokens == 6 and result.completion_tokens == 3 and result.seconds > 0
    assert result.cost == pytest.approx((6 * 1.0 + 3 * 2.0) / 1e6)
    assert result.label_probs is not None and sum(result.label_probs.values()) == pytest.approx(1.0)
    assert result.label_probs[str(grade)] == pytest.approx(0.7 / 0.9)
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["Authorization"] == f"Bearer {SECRET}"
    assert sent.body == {
        "model": "fake",
        "messages": [{"role": "system", "content": "You judge."}, {"role": "user", "content": "query 0: passage 0"}],
        "max_tokens": 16,
        "temperature": 0.0,
        "seed": 0,
        "logprobs": True,
        "top_logprobs": 20,
    }
    assert SECRET not in json.dumps(backend.params()) and SECRET not in repr(backend)


@pytest.mark.server
def test_servers_without_logprobs_and_free_text_requests() -> None:
    with FakeOpenAIServer(logprobs=False) as server:
        results = run_all(make_backend(server), [request(0), request(1, labels=())])
        assert results[0].text and results[0].label_probs is None
        assert results[1].text and results[1].label_probs is None
        # The two requests go out concurrently: the free-text one is the one carrying its messages.
        [free] = [r.body for r in server.requests if r.body["messages"][-1]["content"] == "query 1: passage 1"]
        assert "logprobs" not in free


def test_no_key_sends_no_authorization(server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    assert run_all(make_backend(server), [request(0)])[0].error is None
    assert "Authorization" not in server.requests[0].headers


@pytest.mark.parametrize(
    "fault",
    [
        Fault.error(429),
        Fault.error(500),
        Fault.error(503),
        Fault.hung(3.0),
        Fault.malformed(),
        Fault.no_choices(),
    ],
    ids=["429", "500", "503", "timeout", "not-json", "no-choices"],
)
def test_transient_faults_are_retried(server: FakeOpenAIServer, fault: Fault) -> None:
    server.script(fault)
    result = run_all(make_backend(server, timeout=0.3), [request(0)])[0]
    assert result.error is None and result.text and result.text.startswith(PREFIX)
    assert len(server.requests) == 2


def test_retry_after_is_honoured(server: FakeOpenAIServer) -> None:
    server.script(Fault.error(429, retry_after=0.2), Fault.error(429))
    result = run_all(make_backend(server, backoff=0.001), [request(0)])[0]
    assert result.error is None
    first, second, third = (r.started for r in server.requests)
    assert second - first >= 0.2  # the server asked for 0.2 s
    assert third - second < 0.15  # no Retry-After: the (tiny) backoff


def test_permanent_faults_are_recorded_and_the_run_goes_on(server: FakeOpenAIServer) -> None:
    server.script(
        Fault.error(500),
        Fault.error(500),
        Fault.error(500),  # request 0: beyond 2 retries
        Fault.error(400, "bad request: max_tokens too large"),  # request 1
        Fault.error(401, "Incorrect API key provided", echo_key=True),
    )  # request 2
    results = run_all(make_backend(server, max_retries=2), [request(i) for i in range(4)])
    assert results[0].text is None and results[0].error
    assert "HTTP 500" in results[0].error and "3 attempts" in results[0].error
    assert results[1].text is None and results[1].error == "HTTP 400: bad request: max_tokens too large"
    assert results[2].text is None and results[2].error and results[2].error.startswith("HTTP 401: Incorrect API key")
    assert SECRET not in results[2].error and "***" in results[2].error
    assert results[3].error is None and results[3].text
    assert len(server.requests) == 3 + 1 + 1 + 1  # 400 and 401 are not retried


def test_connection_refused_becomes_a_failure() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    backend = OpenAIBackend("fake", base_url=f"http://127.0.0.1:{port}/v1", max_retries=1, backoff=0.01)
    result = run_all(backend, [request(0)])[0]
    assert result.text is None and result.error and "connection failed" in result.error


@pytest.mark.server
@pytest.mark.parametrize(("concurrency", "expected"), [(4, range(2, 5)), (1, range(1, 2))])
def test_concurrency_really_overlaps(concurrency: int, expected: range) -> None:
    with FakeOpenAIServer(latency=0.1) as server:
        run_all(make_backend(server, concurrency=concurrency), [request(i) for i in range(6)])
        assert server.max_in_flight in expected
        assert len(server.requests) == 6


def test_results_are_yielded_as_they_finish(server: FakeOpenAIServer) -> None:
    server.rule = lambda body: Fault(latency=0.6) if "query 0:" in json.dumps(body) else None
    backend = make_backend(server, concurrency=4)
    start = time.perf_counter()
    order: list[tuple[int, float]] = []
    for index, result in backend.complete([request(i) for i in range(6)]):
        assert result.error is None
        order.append((index, time.perf_counter() - start))
    assert sorted(i for i, _ in order) == list(range(6))
    assert order[-1][0] == 0  # the slow one last
    assert order[0][1] < 0.4  # the first answer came before the slow one was done


def test_label_probs_find_the_label_token() -> None:
    binary = ChatRequest((("user", "q"),), labels=("Yes", "No"))
    logprobs = {
        "content": [
            {
                "token": "yes",
                "logprob": -0.1,
                "top_logprobs": [
                    {"token": "yes", "logprob": -0.1},
                    {"token": "No", "logprob": -2.0},
                    {"token": "Yes", "logprob": -3.0},
                ],
            },
            {"token": ",", "logprob": 0.0, "top_logprobs": []},
        ]
    }
    probs = label_probs("yes, it answers", logprobs, binary)
    assert probs is not None and set(probs) == {"Yes", "No"}
    assert probs["Yes"] > 0.8 and sum(probs.values()) == pytest.approx(1.0)
    assert label_probs("no prefix here", {"content": []}, request(0)) is None
    assert label_probs(f"{PREFIX}2", None, request(0)) is None


# -- end to end: `studio judge --backend openai` on the sample project ---------------------------


def judge(db: Path, base_url: str, *extra: str) -> dict[str, object]:
    outcome = cli(
        db,
        "judge",
        "--backend",
        "openai",
        "--base-url",
        base_url,
        "--model",
        "fake",
        "--name",
        "fake-judge",
        "--topic",
        "1001",
        "--limit",
        "8",
        "--format",
        "json",
        *extra,
    )
    assert outcome.exit_code == 0, outcome.stderr
    parsed: dict[str, object] = json.loads(outcome.stdout)
    return parsed


def all_text(db: Path) -> str:
    """Every VARCHAR value of every table of the project file."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        columns = con.execute(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE data_type = 'VARCHAR' AND table_schema = 'main'"
        ).fetchall()
        assert columns
        values = [str(v) for t, c in columns for (v,) in con.execute(f'SELECT "{c}" FROM "{t}"').fetchall()]
    finally:
        con.close()
    return "\n".join(values)


@pytest.mark.slow
def test_studio_judge_through_the_openai_backend(sample: Path, server: FakeOpenAIServer) -> None:
    db = sample  # a copy of the sample project, built once per test process
    server.script(Fault.error(400, "context too long"), Fault.error(401, "Incorrect API key", echo_key=True))
    first = judge(db, server.base_url, "--concurrency", "2")
    keys = {
        "label_set",
        "method",
        "backend",
        "model",
        "pairs",
        "calls",
        "cache_hits",
        "failures",
        "seconds",
        "prompt_tokens",
        "completion_tokens",
    }
    assert keys <= set(first)
    assert first["backend"] == "openai" and first["model"] == "fake" and first["pairs"] == 8
    assert first["calls"] == 8 and first["cache_hits"] == 0 and first["failures"] == 2
    assert isinstance(first["prompt_tokens"], int) and first["prompt_tokens"] > 0
    assert all(r.headers.get("Authorization") == f"Bearer {SECRET}" for r in server.requests)

    with Project.open(db) as project:
        failures = project.judge_failures("fake-judge")
        labels = (
            project.db.cursor()
            .execute(
                "SELECT count(*) FROM judgments WHERE label IS NOT NULL AND expected IS NOT NULL"
                " AND judge_run_id = (SELECT max(judge_run_id) FROM judgments)"
            )
            .fetchone()
        )
    assert len(failures) == 2 and labels == (6,)
    reasons = sorted(str(f["reason"]) for f in failures)
    assert reasons[0].startswith("call failed: HTTP 400: context too long")
    assert reasons[1].startswith("call failed: HTTP 401: Incorrect API key") and "***" in reasons[1]

    # Answers are cached; the two calls that failed are asked again (the server now answers them).
    second = judge(db, server.base_url)
    assert second["calls"] == 2 and second["cache_hits"] == 6 and second["failures"] == 0
    assert len(server.requests) == 10
    third = judge(db, server.base_url)
    assert third["calls"] == 0 and third["cache_hits"] == 8 and len(server.requests) == 10

    for path in (db, Path(f"{db}.wal")):
        if path.exists():
            assert SECRET.encode() not in path.read_bytes()
    text = all_text(db)
    assert "##final score:" in text and "HTTP 401" in text  # the dump does see outputs and errors
    assert SECRET not in text and "SECRET" not in text
