"""`studio judge --method embedding` and `studio fd` from the command line."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from embedding_helpers import REPO, human_qrels, run_names
from helpers import cli

SUMMARY_KEYS = {
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
    "judge_run",
}
FD_KEYS = {"qrels", "measure", "k", "model", "relevant", "ref_measure", "rows", "kendall_tau", "relevant_documents"}


def test_judge_with_the_embedding_method(cached_sample: Path) -> None:
    result = cli(
        cached_sample,
        "judge",
        "--method",
        "embedding",
        "--topic",
        "1001",
        "--topic",
        "1003",
        "--name",
        "emb",
        "-f",
        "json",
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    pairs = len(human_qrels()["1001"]) + len(human_qrels()["1003"])
    assert set(summary) >= SUMMARY_KEYS
    assert (summary["method"], summary["backend"], summary["model"]) == (
        "embedding",
        "sentence-transformers",
        "all-MiniLM-L6-v2",
    )
    # Every passage of the project was embedded before: nothing to encode.
    assert (summary["pairs"], summary["calls"], summary["cache_hits"], summary["failures"]) == (pairs, 0, pairs, 0)
    listed = json.loads(cli(cached_sample, "list", "qrels", "-f", "json").stdout)
    assert {"name": "emb", "kind": "llm", "pairs": pairs}.items() <= next(
        s for s in listed if s["name"] == "emb"
    ).items()


def test_judge_refuses_the_human_set_and_a_missing_model(cached_sample: Path, tmp_path: Path) -> None:
    refused = cli(cached_sample, "judge", "--method", "embedding", "--name", "human")
    assert refused.exit_code == 2 and "human labels" in refused.stderr
    missing = cli(cached_sample, "judge", "--method", "embedding", "--name", "emb", "--model", tmp_path / "nothing")
    assert missing.exit_code == 2 and "no embedding model folder" in missing.stderr


def test_fd_json_shape(cached_sample: Path) -> None:
    result = cli(cached_sample, "fd", "--qrels", "human", "-k", "5", "--unjudged-only", "-f", "json")
    assert result.exit_code == 0, result.output
    board = json.loads(result.stdout)
    assert set(board) == FD_KEYS
    assert (board["measure"], board["k"], board["qrels"], board["ref_measure"]) == (
        "FD@5(unjudged)",
        5,
        "human",
        "nDCG@10",
    )
    assert sorted(r["run"] for r in board["rows"]) == run_names()
    for row in board["rows"]:
        assert set(row) == {"run", "value", "documents"}
        assert row["value"] is None or isinstance(row["value"], float)
    # Most sample runs retrieve only judged passages near the top: undefined, as JSON null.
    assert any(row["value"] is None for row in board["rows"])
    assert '"value": null' in result.stdout


def test_fd_table_and_csv(cached_sample: Path) -> None:
    table = cli(cached_sample, "fd", "--qrels", "human", "--relevant", "3", "--ref-measure", "AP")
    assert table.exit_code == 0, table.output
    assert "FD@10" in table.stdout and "Kendall τ with AP" in table.stdout
    assert all(run in table.stdout for run in run_names())
    csv = cli(cached_sample, "fd", "--qrels", "human", "-f", "csv")
    lines = csv.stdout.splitlines()
    assert lines[0] == "run,value,documents" and len(lines) == 1 + len(run_names())


def test_fd_bad_usage_exits_2(cached_sample: Path) -> None:
    assert cli(cached_sample, "fd", "--qrels", "nobody").exit_code == 2
    assert cli(cached_sample, "fd", "--qrels", "human", "-k", "0").exit_code == 2
    assert cli(cached_sample, "fd", "--qrels", "human", "--ref-measure", "nonsense@x").exit_code == 2


@pytest.mark.process
def test_cached_vectors_need_no_model(cached_sample: Path) -> None:
    """With every vector cached, neither command imports sentence-transformers or torch."""
    code = textwrap.dedent(f"""
        import sys
        from typer.testing import CliRunner
        from studio.cli.app import app
        for args in (["fd", "--qrels", "human"], ["judge", "--method", "embedding", "--name", "emb"]):
            result = CliRunner().invoke(app, ["--db", {str(cached_sample)!r}, *args])
            assert result.exit_code == 0, result.output
        loaded = [m for m in ("torch", "sentence_transformers", "transformers") if m in sys.modules]
        assert not loaded, loaded
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert result.returncode == 0, result.stderr
