"""The environment, read in one place: `studio.domain.settings` is the only module of the studio that
touches `os.environ`; its variables are the table of docs/project.md; every variable an option of
the command line declares is one of them; and a secret never becomes part of the settings."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from studio.cli.reference import command_tree, commands
from studio.domain import settings as settings_module
from studio.domain.settings import (
    FIELDS,
    LIBRARY_VARIABLES,
    OPTIONS_ONLY,
    VARIABLES,
    Settings,
    current_settings,
    set_for_libraries,
)

ROOT = Path(__file__).resolve().parents[1]
STUDIO = ROOT / "studio"
SETTINGS_MODULE = STUDIO / "domain" / "settings.py"


def environment_reads(source: str) -> list[int]:
    """Lines of `source` that reach the process environment: `os.environ`, `os.getenv`,
    `os.putenv`, `os.unsetenv`, or those names imported from `os`."""
    names = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in names:
            if isinstance(node.value, ast.Name) and node.value.id == "os":
                lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            lines += [node.lineno for alias in node.names if alias.name in names]
    return sorted(lines)


def test_only_the_settings_module_reads_the_environment() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted(STUDIO.rglob("*.py"))
        if path != SETTINGS_MODULE
        for line in environment_reads(path.read_text("utf-8"))
    ]
    assert found == [], "ask studio.domain.settings (current_settings, read_secret, set_for_libraries) instead"
    assert environment_reads(SETTINGS_MODULE.read_text("utf-8"))  # the check sees reads where they are


@pytest.mark.parametrize(
    "source",
    [
        "import os\nx = os.environ.get('STUDIO_DB')\n",
        "import os\nx = os.getenv('HOME')\n",
        "from os import environ\n",
        "import os\nos.environ.setdefault('X', '1')\n",
    ],
)
def test_the_check_sees_every_way_to_the_environment(source: str) -> None:
    assert environment_reads(source)


def table_rows(markdown: str) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for line in markdown.splitlines():
        cells = tuple(c.strip() for c in line.strip().strip("|").split("|"))
        if line.startswith("| `") and len(cells) == 3:
            rows.append(cells)
    return rows


def test_the_docs_table_is_the_settings_variables() -> None:
    section = (ROOT / "docs" / "project.md").read_text("utf-8").split("## Environment variables", 1)[1]
    section = section.split("\n## ", 1)[0]
    expected = [(f"`{v.name}`", v.sets, v.read_by) for v in (*VARIABLES, *LIBRARY_VARIABLES)]
    assert table_rows(section) == expected


def test_every_variable_an_option_declares_is_a_setting() -> None:
    declared = set()
    for _, command in commands(command_tree()):
        for param in command.params:
            envvar = param.envvar
            declared.update([envvar] if isinstance(envvar, str) else list(envvar or []))
    names = {v.name for v in VARIABLES}
    assert declared and declared <= names, declared - names


def test_settings_are_typed_and_an_empty_variable_is_unset(tmp_path: Path) -> None:
    read = current_settings(
        {
            "STUDIO_DB": str(tmp_path / "p.duckdb"),
            "STUDIO_PERSON": "",
            "XDG_DATA_HOME": str(tmp_path),
            "OPENAI_API_KEY": "sk-not-kept-anywhere",
            "UNRELATED": "x",
        }
    )
    assert read.project_file == tmp_path / "p.duckdb" and read.person is None
    assert read.user_data_dir == tmp_path / "studio"
    assert read.openai_api_key_set and "sk-not-kept-anywhere" not in repr(read)
    assert Settings.from_environ({}) == Settings()


def test_every_variable_sets_its_own_field_and_nothing_else() -> None:
    assert sorted([*FIELDS.values(), *OPTIONS_ONLY]) == sorted(v.name for v in VARIABLES)
    assert sorted(FIELDS) == sorted(Settings.__dataclass_fields__)
    unset = Settings()
    for field, name in FIELDS.items():
        read = Settings.from_environ({name: "/somewhere"})
        changed = [f for f in FIELDS if getattr(read, f) != getattr(unset, f)]
        assert changed == [field], name


def test_a_read_secret_comes_from_the_environment_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "sk-abc")
    assert settings_module.read_secret("MY_KEY") == "sk-abc"
    monkeypatch.setenv("MY_KEY", "")
    assert settings_module.read_secret("MY_KEY") is None


def test_the_studio_sets_only_the_library_variables_it_documents(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    set_for_libraries("OMP_WAIT_POLICY", "PASSIVE", keep_existing=True)
    assert os.environ["OMP_WAIT_POLICY"] == "ACTIVE"  # the person's value wins
    monkeypatch.delenv("OMP_WAIT_POLICY")
    set_for_libraries("OMP_WAIT_POLICY", "PASSIVE", keep_existing=True)
    assert os.environ["OMP_WAIT_POLICY"] == "PASSIVE"
    with pytest.raises(ValueError, match="not a variable the studio sets"):
        set_for_libraries("PATH", "/tmp", keep_existing=False)
