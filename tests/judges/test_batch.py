"""OpenAI Batch files: export the pending requests, import the answers, then judge for free.

The judge afterwards runs with the same options and must find every imported answer in the
call cache: 0 calls. Any call it did make would land on a local fake server (OPENAI_BASE_URL),
never on the internet.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer, completion
from helpers import cli

from studio import Project
from studio.domain.judging import JudgeConfig
from studio.services.judging.batch import export_batch, import_batch
from studio.store import labels as label_store
from studio.store.evaluation import load_labels

OPTIONS = ["--backend", "openai", "--model", "fake", "--name", "batch-judge", "--topic", "1001", "--limit", "8"]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as running:
        monkeypatch.setenv("OPENAI_BASE_URL", running.base_url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # export and import need no key
        yield running


@pytest.fixture
def db(sample: Path) -> Path:
    """A copy of the sample project (built once per test process)."""
    return sample


def studio(db: Path, *args: str, code: int = 0) -> Any:
    outcome = cli(db, "judge", *OPTIONS, *args, "--format", "json")
    assert outcome.exit_code == code, outcome.stderr
    return json.loads(outcome.stdout) if code == 0 else outcome.stderr


def batch_output(lines: list[dict[str, Any]], answer: str) -> list[dict[str, Any]]:
    """What the Batch API would give back for `lines`, every model answer being `answer`."""
    return [
        {
            "id": f"batch_req_{i}",
            "custom_id": line["custom_id"],
            "error": None,
            "response": {
                "status_code": 200,
                "request_id": f"req_{i}",
                "body": completion(line["body"], answer, with_logprobs=False),
            },
        }
        for i, line in enumerate(lines)
    ]


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.slow
def test_export_import_then_judge_makes_no_call(db: Path, tmp_path: Path, server: FakeOpenAIServer) -> None:
    requests_file = tmp_path / "batch-input.jsonl"
    exported = studio(db, "--export-batch", str(requests_file))
    assert exported == {"file": str(requests_file), "requests": 8}
    lines = [json.loads(line) for line in requests_file.read_text().splitlines()]
    assert len(lines) == 8 and len({line["custom_id"] for line in lines}) == 8
    for line in lines:
        assert line["method"] == "POST" and line["url"] == "/v1/chat/completions"
        assert len(line["custom_id"]) == 64
        body = line["body"]
        assert body["model"] == "fake" and body["temperature"] == 0 and body["seed"] == 0
        assert body["max_tokens"] > 0 and body["logprobs"] is True and body["top_logprobs"] == 20
        assert body["messages"][-1]["role"] == "user" and body["messages"][-1]["content"]

    answers = batch_output(lines, "The passage answers it.\n##final score: 2")
    output = write_jsonl(tmp_path / "batch-output.jsonl", answers)
    imported = studio(db, "--import-batch", str(output))
    assert imported["answers"] == 8 and imported["failures"] == 0 and imported["unknown"] == 0
    assert studio(db, "--export-batch", str(requests_file))["requests"] == 0  # nothing pending

    summary = studio(db)
    assert summary["calls"] == 0 and summary["cache_hits"] == 8 and summary["failures"] == 0
    assert summary["pairs"] == 8 and server.requests == []
    with Project.open(db) as project:
        set_id = label_store.label_set_id(project.db.cursor(), "batch-judge")
        assert set_id is not None
        grades = load_labels(project.db.cursor(), set_id)
    assert {docid: grade for docid, grade in grades["1001"].items()} == {f"p1001-0{i}": 2.0 for i in range(1, 9)}


@pytest.mark.slow
def test_batch_failures_unknown_lines_and_bad_files(db: Path, tmp_path: Path, server: FakeOpenAIServer) -> None:
    config = JudgeConfig(method="umbrela", backend="openai", name="batch-judge", model="fake", topics=["1001"], limit=4)
    with Project.open(db) as project:
        assert export_batch(project.db, config, tmp_path / "in.jsonl") == 4
        lines = [json.loads(line) for line in (tmp_path / "in.jsonl").read_text().splitlines()]
        records = batch_output(lines, "##final score: 3")
        records[1] = {
            "custom_id": lines[1]["custom_id"],
            "response": None,
            "error": {"code": "batch_expired", "message": "This request could not be executed"},
        }
        records[2]["response"] = {"status_code": 500, "body": {"error": {"message": "server trouble"}}}
        records.append({"custom_id": "0" * 64, "response": records[0]["response"], "error": None})
        counts = import_batch(project.db, config, write_jsonl(tmp_path / "out.jsonl", records))
        assert counts == {"lines": 5, "answers": 2, "failures": 2, "unknown": 1, "already_cached": 0}
        # a failure never replaces an answer already in the cache
        records[0] = {"custom_id": lines[0]["custom_id"], "response": None, "error": {"message": "late"}}
        late = write_jsonl(tmp_path / "out2.jsonl", records[:1])
        assert import_batch(project.db, config, late)["already_cached"] == 1
        assert export_batch(project.db, config, tmp_path / "again.jsonl") == 2  # the failures are asked again

    with Project.open(db) as project:
        stored = (
            project.db.cursor().execute("SELECT error FROM calls WHERE error IS NOT NULL ORDER BY error").fetchall()
        )
    assert stored == [("HTTP 500: server trouble",), ("batch error: This request could not be executed",)]

    # The imported answers are cache hits; the two failed batch calls are asked again live.
    summary = studio(db, "--limit", "4")
    assert summary["calls"] == 2 and summary["cache_hits"] == 2 and summary["failures"] == 0

    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps(records[0]) + "\n{not json\n", encoding="utf-8")
    assert f"{broken}:2" in studio(db, "--import-batch", str(broken), code=2)
    assert "openai backend" in studio(db, "--backend", "simulated", "--export-batch", str(broken), code=2)
    assert "not both" in studio(db, "--export-batch", "a", "--import-batch", "b", code=2)


EXPORT_OPTIONS = ["--model", "fake", "--topic", "1001", "--limit", "8"]  # `studio judges export-batch`'s


def test_a_batch_file_is_written_whole_or_not_at_all(
    db: Path, tmp_path: Path, server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As every export: a write the disk refuses leaves the earlier file as it was (exit 1)."""
    target = tmp_path / "in.jsonl"
    target.write_text("the earlier batch file\n", encoding="utf-8")

    def full_disk(descriptor: int, data: bytes) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("os.write", full_disk)
    refused = cli(db, "judges", "export-batch", "batch-judge", "--out", target, *EXPORT_OPTIONS)
    monkeypatch.undo()
    assert refused.exit_code == 1, refused.output
    assert refused.stderr == f"error: cannot write {target}: No space left on device\n"
    assert target.read_text(encoding="utf-8") == "the earlier batch file\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []
    assert server.requests == []


def test_a_batch_file_named_dash_is_a_file(
    db: Path, tmp_path: Path, server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not stdout: the command prints its count there, which would join the batch lines."""
    monkeypatch.chdir(tmp_path)
    with Project.open(db) as project:
        config = JudgeConfig(method="umbrela", backend="openai", name="b", model="fake", topics=["1001"], limit=3)
        assert export_batch(project.db, config, Path("-")) == 3
    assert len((tmp_path / "-").read_text(encoding="utf-8").splitlines()) == 3
