"""A model file llama.cpp cannot load is a bad --model: exit 2 naming the file, nothing written,
whichever command loads it."""

from __future__ import annotations

from pathlib import Path

import pytest
from gates.conftest import fingerprint
from helpers import cli

from studio.cli.errors import ExitCode

# (command, the file given as its --model): each command that loads a model, each kind of non-model.
CASES = {
    "judge, a text file": (["judge", "--backend", "llamacpp", "--name", "local", "--limit", "1"], b"Query: {query}\n"),
    "bank generate, a truncated GGUF header": (["bank", "generate", "fresh"], b"GGUF\x03\x00\x00\x00"),
    "bank nuggetize, bytes that are not UTF-8": (["bank", "nuggetize", "fresh"], b"\xff\xfe\x00garbage"),
}


@pytest.mark.parametrize(("command", "content"), CASES.values(), ids=CASES.keys())
def test_a_file_that_is_no_gguf_model_exits_2_naming_it(
    sample: Path, tmp_path: Path, command: list[str], content: bytes
) -> None:
    model = tmp_path / "model.gguf"
    model.write_bytes(content)
    before = fingerprint(sample)
    result = cli(sample, *command, "--model", model)
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    assert f"model file {model} is not a GGUF model" in result.stderr
    assert "Traceback" not in result.output
    assert fingerprint(sample) == before


def test_a_model_path_that_is_no_file_says_what_it_is(sample: Path, tmp_path: Path) -> None:
    before = fingerprint(sample)
    for model, reason in ((tmp_path, "a directory, not a file"), (tmp_path / "gone.gguf", "no such file")):
        result = cli(sample, "judge", "--backend", "llamacpp", "--name", "local", "--limit", "1", "--model", model)
        assert result.exit_code == ExitCode.BAD_INPUT, result.output
        assert f"model file {model}: {reason}" in result.stderr
    assert fingerprint(sample) == before
