"""stdout as Unix tools treat it: a full disk is one line on stderr and exit 1, a reader that closed
the pipe ends the command quietly with 141 (128 + SIGPIPE), never a traceback; `--out /dev/stdout`
is stdout; an export into a FIFO whose reader leaves is exit 1 with the FIFO left in place."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

import pytest
from cli.cli_helpers import FIXED_ENV, REPO, UNSET_ENV
from helpers import cli

from studio.cli.errors import ExitCode


def studio_process(project: Path, args: list[str], stdout: IO[bytes] | int) -> subprocess.Popen[bytes]:
    """`python -m studio --db PROJECT ARGS…` with stdout where the test says, stderr piped."""
    env = {k: v for k, v in os.environ.items() if k not in UNSET_ENV} | FIXED_ENV
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return subprocess.Popen(
        [sys.executable, "-m", "studio", "--db", str(project), *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        env=env,
        cwd=project.parent,
    )


def into_full_disk(project: Path, args: list[str]) -> tuple[int, str]:
    """Exit status and stderr of the command with stdout on /dev/full (every write: ENOSPC)."""
    with open("/dev/full", "wb") as full:
        process = studio_process(project, args, full)
        _, err = process.communicate(timeout=120)
    return process.returncode, err.decode()


def into_closed_pipe(project: Path, args: list[str]) -> tuple[int, str]:
    """Exit status and stderr of the command with stdout on a pipe nobody reads any more."""
    process = studio_process(project, args, subprocess.PIPE)
    assert process.stdout is not None
    process.stdout.close()  # before the studio writes: its first write meets EPIPE
    _, err = process.communicate(timeout=120)
    return process.returncode, err.decode()


@pytest.mark.process
@pytest.mark.parametrize(
    "args",
    [
        ["eval", "--qrels", "human"],  # a table
        ["eval", "--qrels", "human", "--format", "json"],
        ["list", "qrels", "--format", "csv"],
        ["check"],  # plain lines (typer.echo)
        ["export", "qrels", "human", "--out", "-"],
    ],
)
def test_a_full_disk_on_stdout_is_one_line_and_exit_1(demo_project: Path, args: list[str]) -> None:
    code, err = into_full_disk(demo_project, args)
    assert code == ExitCode.RUNTIME_ERROR
    assert err.startswith("error: cannot write") and err.endswith("No space left on device\n"), err
    assert err.count("\n") == 1, err


@pytest.mark.process
def test_help_into_a_full_disk_is_one_line_and_exit_1(demo_project: Path) -> None:
    code, err = into_full_disk(demo_project, ["eval", "--help"])
    assert (code, err.count("\n")) == (ExitCode.RUNTIME_ERROR, 1), err
    assert "No space left on device" in err


@pytest.mark.process
@pytest.mark.parametrize(
    "args",
    [
        ["list"],
        ["eval", "--qrels", "human", "--per-topic", "--format", "tsv"],
        ["export", "judgments", "umbrela-smol", "--out", "-"],
    ],
)
def test_a_reader_that_closed_the_pipe_ends_the_command_quietly(demo_project: Path, args: list[str]) -> None:
    code, err = into_closed_pipe(demo_project, args)
    assert (code, err) == (ExitCode.READER_GONE, "")
    assert ExitCode.READER_GONE == 128 + signal.SIGPIPE  # what a shell reports for a tool SIGPIPE stopped


@pytest.mark.process
def test_dev_stdout_is_stdout_when_stdout_is_a_pipe(demo_project: Path, tmp_path: Path) -> None:
    expected = tmp_path / "human.qrels"
    assert cli(demo_project, "export", "qrels", "human", "--out", expected).exit_code == 0
    process = studio_process(demo_project, ["export", "qrels", "human", "--out", "/dev/stdout"], subprocess.PIPE)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err.decode()
    assert out == expected.read_bytes() and out
    assert "to <stdout>" in err.decode()


def test_an_export_into_a_fifo_whose_reader_leaves_exits_1(demo_project: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "judgments.fifo"
    os.mkfifo(fifo)

    def read_a_little() -> None:
        with fifo.open("rb") as pipe:
            pipe.read(10)

    reader = threading.Thread(target=read_a_little, daemon=True)
    reader.start()
    # Far more than a pipe's buffer, so that the writer is still writing when the reader leaves.
    result = cli(demo_project, "export", "judgments", "umbrela-smol", "--out", fifo)
    reader.join(timeout=10)
    assert result.exit_code == ExitCode.RUNTIME_ERROR, result.output
    assert result.stderr == f"error: cannot write {fifo}: Broken pipe\n"
    assert stat.S_ISFIFO(fifo.stat().st_mode)
