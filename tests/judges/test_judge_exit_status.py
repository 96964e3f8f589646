"""`studio judge` against a real HTTP server on loopback: a run whose every call failed exits 1 and
says what the server answered; a run with some failures exits 0 and counts them; either way the
failures stay recorded. A base URL holding a credential is refused before anything is written,
and a key given through the environment reaches neither the project file nor the output."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import duckdb
import pytest
from fake_openai_server import FakeOpenAIServer, Fault
from helpers import cli
from typer.testing import Result

from studio.cli.errors import ExitCode
from studio.judges.endpoints import credentials_in

# Not shaped like an OpenAI key (sk-…), so only the studio's redaction of the key itself hides it.
KEY = "studio-test-key-7Hq2ZpX9"


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture
def refused_port() -> int:
    """A loopback port nothing listens on: a connection there is refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def judge(db: Path, base_url: str, *extra: str, name: str = "remote") -> Result:
    return cli(
        db,
        "judge",
        "--backend",
        "openai",
        "--model",
        "fake",
        "--base-url",
        base_url,
        "--name",
        name,
        "--topic",
        "1001",
        "--limit",
        "6",
        "--retries",
        "0",
        "--format",
        "json",
        *extra,
    )


def recorded_failures(db: Path, name: str) -> list[dict[str, Any]]:
    result = cli(db, "judges", "failures", name, "--format", "json")
    assert result.exit_code == 0, result.output
    rows: list[dict[str, Any]] = json.loads(result.stdout)
    return rows


def label_sets(db: Path) -> set[str]:
    return {row["name"] for row in json.loads(cli(db, "list", "qrels", "--format", "json").stdout)}


# -- exit status ---------------------------------------------------------------------------------


def test_a_server_that_refuses_every_connection_exits_1_saying_so(sample: Path, refused_port: int) -> None:
    result = judge(sample, f"http://127.0.0.1:{refused_port}/v1")
    assert result.exit_code == ExitCode.RUNTIME_ERROR, result.output
    summary = json.loads(result.stdout)  # the summary is printed all the same
    assert (summary["calls"], summary["failed_calls"], summary["cache_hits"]) == (6, 6, 0)
    error = result.stderr.splitlines()[-1]
    assert error.startswith("error: 6 of 6 calls failed: connection failed:") and "Connection refused" in error
    assert "studio judges failures remote" in error
    assert len(recorded_failures(sample, "remote")) == 6


def test_a_server_answering_500_to_every_call_exits_1_with_its_words(sample: Path, server: FakeOpenAIServer) -> None:
    server.rule = lambda body: Fault.error(500, "the model is not loaded")
    result = judge(sample, server.base_url)
    assert result.exit_code == ExitCode.RUNTIME_ERROR, result.output
    assert "error: 6 of 6 calls failed: HTTP 500: the model is not loaded" in result.stderr
    assert len(server.requests) == 6  # retries 0: one request per call
    reasons = {row["reason"] for row in recorded_failures(sample, "remote")}
    assert len(reasons) == 1 and "HTTP 500: the model is not loaded" in reasons.pop()


def test_some_failed_calls_exit_0_and_are_counted(sample: Path, server: FakeOpenAIServer) -> None:
    server.script(Fault.error(500), Fault.error(503))
    result = judge(sample, server.base_url, "--concurrency", "1")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert (summary["calls"], summary["failed_calls"], summary["failures"]) == (6, 2, 2)
    assert summary["first_failure"].startswith("HTTP 500: fake error 500")
    assert "error" not in result.stderr and "2 failures" in result.stderr
    assert len(recorded_failures(sample, "remote")) == 2


def test_a_rerun_that_costs_no_call_is_no_failure(sample: Path, server: FakeOpenAIServer) -> None:
    assert judge(sample, server.base_url).exit_code == 0
    again = judge(sample, server.base_url)
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["calls"] == 0


# -- credentials in the base URL -----------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://user:{secret}@127.0.0.1:{port}/v1",
        "http://:{secret}@127.0.0.1:{port}/v1",
        "http://127.0.0.1:{port}/v1?api_key={secret}",
        "http://127.0.0.1:{port}/v1?key={secret}",
        "http://127.0.0.1:{port}/v1?token={secret}",
        "http://127.0.0.1:{port}/v1?access_token={secret}",
        "http://127.0.0.1:{port}/v1?auth={secret}",
        "http://127.0.0.1:{port}/v1?api-version=2024-06-01&Api-Key={secret}",
    ],
)
def test_a_base_url_holding_a_credential_is_refused_before_any_write(
    sample: Path, server: FakeOpenAIServer, url: str
) -> None:
    before = label_sets(sample)
    secret = "leaked-secret-0042"
    result = judge(sample, url.format(secret=secret, port=server.port))
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    assert "put the key in $OPENAI_API_KEY" in result.stderr
    assert secret not in result.output
    assert server.requests == [] and label_sets(sample) == before
    assert secret.encode() not in sample.read_bytes()


def test_the_variable_named_by_api_key_env_is_the_one_suggested(sample: Path, server: FakeOpenAIServer) -> None:
    result = judge(sample, f"http://u:p@127.0.0.1:{server.port}/v1", "--api-key-env", "MY_SERVER_KEY")
    assert result.exit_code == ExitCode.BAD_INPUT and "put the key in $MY_SERVER_KEY" in result.stderr


def test_openai_base_url_holding_a_credential_is_refused_too(
    sample: Path, server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{server.port}/v1?api_key=from-the-environment")
    result = cli(sample, "judge", "--backend", "openai", "--model", "fake", "--name", "env", "--limit", "2")
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    assert "from-the-environment" not in result.output and server.requests == []
    assert "env" not in label_sets(sample)


@pytest.mark.parametrize(
    ("url", "found"),
    [
        ("http://localhost:8000/v1", None),
        ("https://example.org/openai/v1?api-version=2024-06-01", None),
        ("https://example.org/v1?model=x&keyword=y", None),
        ("http://a:b@example.org/v1", "user:password@"),
        ("https://example.org/v1?X-Api-Key=1", "query parameter X-Api-Key"),
        ("https://example.org/v1?refresh_token=1", "query parameter refresh_token"),
        ("https://example.org/v1?sig=1", "query parameter sig"),
    ],
)
def test_what_counts_as_a_credential(url: str, found: str | None) -> None:
    assert credentials_in(url) == found


# -- the key never written -----------------------------------------------------------------------


def every_text(db: Path) -> str:
    """Every value of every text or JSON column of every table of the project file."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        columns = con.execute(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = 'main' AND data_type IN ('VARCHAR', 'VARCHAR[]', 'JSON')"
        ).fetchall()
        tables = {table for table, _ in columns}
        assert {"judge_runs", "calls", "judgments"} <= tables, tables
        return "\n".join(
            str(value)
            for table, column in columns
            for (value,) in con.execute(f'SELECT "{column}" FROM "{table}"').fetchall()
        )
    finally:
        con.close()


def test_a_key_from_the_environment_reaches_neither_the_project_file_nor_the_output(
    sample: Path, server: FakeOpenAIServer
) -> None:
    # The server puts the Authorization header into its error message, as some proxies do.
    server.script(Fault.error(401, "Incorrect API key", echo_key=True))
    result = judge(sample, server.base_url, "--concurrency", "1")
    assert result.exit_code == 0, result.output
    assert all(r.headers.get("Authorization") == f"Bearer {KEY}" for r in server.requests)
    failures = recorded_failures(sample, "remote")
    assert len(failures) == 1 and "***" in failures[0]["reason"]  # the echoed key, blanked
    text = every_text(sample)
    assert "HTTP 401" in text and "OPENAI_API_KEY" in text  # the scan sees errors and the variable's name
    assert KEY not in text and KEY not in result.output
    for path in (sample, Path(f"{sample}.wal")):
        if path.exists():
            assert KEY.encode() not in path.read_bytes()
