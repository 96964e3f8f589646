"""Running `studio` for the CLI tests: through a real subprocess (`python -m studio`) and through
typer's CliRunner in-process, with a fixed environment, and comparing stdout with golden files.

To regenerate the golden files after an intended change of output:
    STUDIO_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/cli
then review the diff of tests/cli/golden/.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from golden_compare import golden_differences
from helpers import cli

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE_GOLDEN = os.environ.get("STUDIO_UPDATE_GOLDEN") == "1"

# Deterministic output: fixed width, no colour, no terminal features; no project or sample-data
# location inherited from the person running the tests.
FIXED_ENV = {"COLUMNS": "100", "LINES": "40", "TERM": "dumb", "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"}
UNSET_ENV = ("STUDIO_DB", "STUDIO_SAMPLE_DATA", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str


def run_subprocess(args: list[str], home: Path, extra_env: Mapping[str, str] | None = None) -> Result:
    env = {k: v for k, v in os.environ.items() if k not in UNSET_ENV}
    env.update(FIXED_ENV, **(extra_env or {}))
    env.update(
        HOME=str(home),
        XDG_DATA_HOME=str(home / "data"),
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])),
    )
    done = subprocess.run(
        [sys.executable, "-m", "studio", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        cwd=home,
        timeout=120,
    )
    return Result(done.returncode, done.stdout, done.stderr)


def run_clirunner(args: list[str], home: Path, extra_env: Mapping[str, str] | None = None) -> Result:
    """In-process; the warnings a process would print on stderr (Python's default filters, then the
    studio's own) are put after its stderr as Python prints them, since pytest records them instead."""
    env: dict[str, str | None] = {k: None for k in UNSET_ENV}
    env.update(FIXED_ENV, **(extra_env or {}))
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.resetwarnings()
        warnings.simplefilter("default")
        for category in PROCESS_IGNORES:
            warnings.simplefilter("ignore", category)
        result = cli(None, *args, env=env)
    shown = "".join(warnings.formatwarning(w.message, w.category, w.filename, w.lineno, w.line) for w in caught)
    return Result(result.exit_code, result.stdout, result.stderr + shown)


# The warnings Python's default filters keep off a program's stderr (outside `__main__`).
PROCESS_IGNORES: tuple[type[Warning], ...] = (
    DeprecationWarning,
    PendingDeprecationWarning,
    ImportWarning,
    ResourceWarning,
)


RUNNERS = {"subprocess": run_subprocess, "clirunner": run_clirunner}
# The runners as test parameters: the subprocess one starts the real entry point (`process` tier).
RUNNER_PARAMS = [pytest.param("subprocess", marks=pytest.mark.process), "clirunner"]


TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")
OWNER = re.compile(r'"owner": "\d+@[^"]*"')


def normalised(text: str, project: Path) -> str:
    """Paths, clock times (a judge run's start and end) and processes (the pid@host that ran a judge)
    vary between runs; the rest may not."""
    text = TIMESTAMP.sub("<time>", text.replace(str(project), "<project>").replace(str(REPO), "<repo>"))
    return OWNER.sub('"owner": "<pid>@<host>"', text)


def assert_matches_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE_GOLDEN:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"{path} missing: run with STUDIO_UPDATE_GOLDEN=1 to create it"
    differences = golden_differences(name, text, path.read_text(encoding="utf-8"))
    assert not differences, f"output differs from {path}:\n" + "\n".join(differences[:20])
