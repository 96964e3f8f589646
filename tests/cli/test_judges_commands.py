"""`studio judges …`: inspecting and managing judge runs, and the older flags of `studio judge`
that still do the same (hidden from --help).

Any model call a batch test makes would land on a local fake server (OPENAI_BASE_URL), never on
the internet; the tests check that none is made.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer, completion
from fakes import ScriptedBackend, passage_number
from helpers import cli, judge_all

from studio import Project
from studio.domain.judging import JudgeConfig
from studio.judges.backend import ChatRequest


def half_readable(request: ChatRequest) -> str:
    """A readable score for even passages, prose for odd ones (recorded failures)."""
    number = passage_number(request)
    return f"##final score: {number % 4}" if number % 2 == 0 else "It depends."


@pytest.fixture
def judged(sample: Path) -> Path:
    """The sample project plus `half` (umbrela on topic 1001, 14 of 28 outputs unreadable) and
    `exam` (a simulated exam-question judge of 4 pairs of topic 1009)."""
    with Project.open(sample) as project:
        config = JudgeConfig(method="umbrela", backend="half", name="half", topics=["1001"])
        judge_all(project.db, config, ScriptedBackend(half_readable, name="half", model="half"))
        exam = JudgeConfig(
            method="exam-question", backend="simulated", name="exam", bank="questions", topics=["1009"], limit=4
        )
        judge_all(project.db, exam)
    return sample


def stdout_of(db: Path, *args: str) -> str:
    result = cli(db, *args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


# -- the group ------------------------------------------------------------------------------------


def test_the_group_lists_its_commands(judged: Path) -> None:
    text = stdout_of(judged, "judges", "--help")
    assert "Inspect and manage judge runs" in text
    for command in ("list", "failures", "reparse", "extract-answers", "verify", "export-batch", "import-batch"):
        assert command in text


@pytest.mark.parametrize("fmt", ["json", "table", "csv"])
def test_judges_list_is_list_judges(judged: Path, fmt: str) -> None:
    assert stdout_of(judged, "judges", "list", "-f", fmt) == stdout_of(judged, "list", "judges", "-f", fmt)
    runs = json.loads(stdout_of(judged, "judges", "list", "-f", "json"))
    assert [run["label_set"] for run in runs] == ["umbrela-smol", "half", "exam"]


def test_failures_lists_the_raw_outputs(judged: Path) -> None:
    rows = json.loads(stdout_of(judged, "judges", "failures", "half", "-f", "json"))
    assert len(rows) == 14 and {r["output"] for r in rows} == {"It depends."}
    assert json.loads(stdout_of(judged, "judges", "failures", "exam", "-f", "json")) == []


def test_reparse_counts_and_refuses_a_set_no_judge_made(judged: Path) -> None:
    counts = json.loads(stdout_of(judged, "judges", "reparse", "half", "-f", "json"))
    assert counts == {"judgments": 28, "changed": 0, "failures": 14}
    refused = cli(judged, "judges", "reparse", "human")
    assert refused.exit_code == 2 and "not made by a judge" in refused.stderr


def test_extract_answers_then_verify(judged: Path) -> None:
    counts = json.loads(stdout_of(judged, "judges", "extract-answers", "exam", "-f", "json"))
    assert counts["judgments"] == 40
    rows = json.loads(stdout_of(judged, "judges", "verify", "exam", "-f", "json"))
    assert len(rows) == 40 and {r["qid"] for r in rows} == {"1009"}
    refused = cli(judged, "judges", "extract-answers", "half")
    assert refused.exit_code == 2 and "test bank" in refused.stderr


def test_a_missing_label_set_name_is_a_usage_error(judged: Path) -> None:
    result = cli(judged, "judges", "failures")
    assert result.exit_code == 2 and "Missing argument" in result.stderr


# -- the older flags of `studio judge` --------------------------------------------------------------

OLD_AND_NEW = {
    "failures": (["judge", "--name", "half", "--failures"], ["judges", "failures", "half"]),
    "reparse": (["judge", "--name", "half", "--reparse"], ["judges", "reparse", "half"]),
    "verify": (["judge", "--name", "exam", "--verify"], ["judges", "verify", "exam"]),
    "extract-answers": (["judge", "--name", "exam", "--extract-answers"], ["judges", "extract-answers", "exam"]),
}


@pytest.mark.parametrize("fmt", ["json", "table"])
@pytest.mark.parametrize("action", OLD_AND_NEW)
def test_the_older_flags_print_what_the_new_commands_print(judged: Path, action: str, fmt: str) -> None:
    old, new = OLD_AND_NEW[action]
    assert stdout_of(judged, *old, "-f", fmt) == stdout_of(judged, *new, "-f", fmt)


def test_the_older_flags_are_hidden_from_help_and_stale_is_not(judged: Path) -> None:
    text = stdout_of(judged, "judge", "--help")
    for flag in ("--failures", "--reparse", "--extract-answers", "--verify", "--export-batch", "--import-batch"):
        assert flag not in text
    assert "--stale" in text and "studio judges" in text


# -- OpenAI Batch files ---------------------------------------------------------------------------


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as running:
        monkeypatch.setenv("OPENAI_BASE_URL", running.base_url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # export and import need no key
        yield running


JUDGE = ["--model", "fake", "--topic", "1001", "--limit", "8"]


def batch_answers(requests_file: Path, out: Path) -> Path:
    """What the Batch API would give back for the requests: grade 2 for every pair."""
    lines = [json.loads(line) for line in requests_file.read_text().splitlines()]
    records: list[dict[str, Any]] = [
        {
            "id": f"batch_req_{i}",
            "custom_id": line["custom_id"],
            "error": None,
            "response": {"status_code": 200, "body": completion(line["body"], "##final score: 2", with_logprobs=False)},
        }
        for i, line in enumerate(lines)
    ]
    out.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return out


def test_export_import_then_judge_makes_no_call(sample: Path, tmp_path: Path, server: FakeOpenAIServer) -> None:
    pending = tmp_path / "pending.jsonl"
    exported = json.loads(
        stdout_of(sample, "judges", "export-batch", "qwen", "--out", str(pending), *JUDGE, "-f", "json")
    )
    assert exported == {"file": str(pending), "requests": 8}
    # The older spelling writes the very same requests.
    older = tmp_path / "older.jsonl"
    stdout_of(sample, "judge", "--backend", "openai", "--name", "qwen", *JUDGE, "--export-batch", str(older))
    assert older.read_text() == pending.read_text()

    answers = batch_answers(pending, tmp_path / "answers.jsonl")
    imported = json.loads(stdout_of(sample, "judges", "import-batch", "qwen", str(answers), *JUDGE, "-f", "json"))
    assert imported == {
        "file": str(answers),
        "lines": 8,
        "answers": 8,
        "failures": 0,
        "unknown": 0,
        "already_cached": 0,
    }
    summary = json.loads(stdout_of(sample, "judge", "--backend", "openai", "--name", "qwen", *JUDGE, "-f", "json"))
    assert summary["calls"] == 0 and summary["cache_hits"] == 8 and server.requests == []


def test_a_judged_label_set_exports_with_its_saved_configuration(
    sample: Path, tmp_path: Path, server: FakeOpenAIServer
) -> None:
    pending = tmp_path / "pending.jsonl"
    stdout_of(sample, "judges", "export-batch", "qwen", "--out", str(pending), *JUDGE)
    stdout_of(sample, "judges", "import-batch", "qwen", str(batch_answers(pending, tmp_path / "a.jsonl")), *JUDGE)
    stdout_of(sample, "judge", "--backend", "openai", "--name", "qwen", *JUDGE)

    # No option: the newest run's model, topic and limit, all answered already.
    again = tmp_path / "again.jsonl"
    assert json.loads(stdout_of(sample, "judges", "export-batch", "qwen", "-o", str(again), "-f", "json")) == {
        "file": str(again),
        "requests": 0,
    }
    # An option given replaces the saved value: two more pairs of the same topic and model.
    wider = json.loads(
        stdout_of(sample, "judges", "export-batch", "qwen", "-o", str(again), "--limit", "10", "-f", "json")
    )
    assert wider["requests"] == 2
    lines = [json.loads(line) for line in again.read_text().splitlines()]
    assert {line["body"]["model"] for line in lines} == {"fake"}
    assert server.requests == []


def test_batch_files_are_for_openai_judges_only(judged: Path, tmp_path: Path) -> None:
    # `exam` was judged by the simulated backend: its saved configuration cannot go through a batch.
    result = cli(judged, "judges", "export-batch", "exam", "--out", tmp_path / "x.jsonl")
    assert result.exit_code == 2 and "openai backend" in result.stderr
    assert not (tmp_path / "x.jsonl").exists()


def test_a_malformed_batch_output_is_refused_with_its_line(
    sample: Path, tmp_path: Path, server: FakeOpenAIServer
) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"custom_id": "0", "response": null, "error": null}\n{not json\n', encoding="utf-8")
    result = cli(sample, "judges", "import-batch", "qwen", broken, *JUDGE)
    assert result.exit_code == 2 and f"{broken}:2" in result.stderr
