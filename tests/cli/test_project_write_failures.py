"""A write to the project file that the system refuses ends `studio label` and `studio import` with
exit 1 and one line, the project as it was. The refusal is real: the studio runs with a file-size
limit (RLIMIT_FSIZE, SIGXFSZ ignored) too small for DuckDB's log, so its write fails with EFBIG as
it fails with ENOSPC on a full disk (tests/store/test_no_room.py, which needs root, fills a real
one); no root or mount is needed here."""

from __future__ import annotations

import errno
import hashlib
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from cli.cli_helpers import FIXED_ENV, REPO, UNSET_ENV
from helpers import cli, copy_project

from studio.cli.errors import ExitCode

LIMIT_BYTES = 512  # below the smallest write-ahead log record of a label edit


def with_file_size_limit() -> None:
    """In the child: files may not grow past LIMIT_BYTES; a write past it fails (EFBIG)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT_BYTES, LIMIT_BYTES))


def limited_studio(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in UNSET_ENV} | FIXED_ENV
    env |= {"PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "studio", "--db", str(project), *args],
        capture_output=True,
        text=True,
        env=env,
        preexec_fn=with_file_size_limit,
        timeout=120,
        check=False,
    )


def state(project: Path) -> tuple[str, str, str]:
    """The file's digest, its label sets and its newest label events, as the studio lists them."""
    digest = hashlib.sha256(project.read_bytes()).hexdigest()
    sets = cli(project, "list", "qrels", "--format", "csv")
    history = cli(project, "history", "--format", "csv")
    assert sets.exit_code == history.exit_code == 0
    return digest, sets.stdout, history.stdout


@pytest.fixture
def project(demo_project: Path, tmp_path: Path) -> Path:
    return copy_project(demo_project, tmp_path)


@pytest.fixture
def big_qrels(tmp_path: Path) -> Path:
    path = tmp_path / "more.qrels"
    path.write_text("".join(f"1001 0 extra-{n} {n % 4}\n" for n in range(5000)), encoding="utf-8")
    return path


@pytest.mark.process
@pytest.mark.parametrize("command", ["label", "import"])
def test_a_refused_write_exits_1_in_one_line_and_changes_nothing(project: Path, big_qrels: Path, command: str) -> None:
    args = {
        "label": ["label", "--qrels", "human", "1001", "p1001-01", "3"],
        "import": ["import", "qrels", str(big_qrels), "--name", "more"],
    }[command]
    before = state(project)
    done = limited_studio(project, *args)
    assert done.returncode == ExitCode.RUNTIME_ERROR, done.stderr
    reason = os.strerror(errno.EFBIG).lower()
    assert done.stderr == (
        f"error: cannot write {project}: {reason} (DuckDB needs room for its log beside the file);"
        " nothing was written\n"
    )
    assert done.stdout == ""
    assert state(project) == before
    again = cli(project, *args)  # without the limit, the same write goes through
    assert again.exit_code == 0, again.output
    assert state(project) != before
