"""The command tree is a contract: scripts call `studio` by command and option names. The golden
file lists every command with its arguments and options (choices included, hidden ones marked),
so renaming or dropping one shows as a diff of tests/cli/golden/command_tree.json.

To regenerate it after an intended change:
    STUDIO_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/cli/test_command_tree.py
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from typing import Any

import typer
from cli.cli_helpers import assert_matches_golden

import studio.cli
from studio.cli.app import COMMAND_MODULES, app


def describe(param: Any) -> str:
    """`--method [umbrela|binary|…]`, `NAME`, `--failures (hidden)`: one parameter in one line."""
    names = "/".join(param.opts + param.secondary_opts) if param.param_type_name == "option" else param.name.upper()
    choices = param.type_descriptor.choices
    text = f"{names} [{'|'.join(str(c) for c in choices)}]" if choices else names
    if getattr(param, "multiple", False) or param.nargs == -1:
        text += " …"
    return text + (" (hidden)" if getattr(param, "hidden", False) else "")


def command_tree(command: Any, path: str = "studio") -> dict[str, list[str]]:
    tree = {path: [describe(p) for p in command.params]}
    for name, sub in getattr(command, "commands", {}).items():
        tree.update(command_tree(sub, f"{path} {name}"))
    return tree


def test_the_command_tree_matches_the_golden_file() -> None:
    tree = command_tree(typer.main.get_command(app))
    assert_matches_golden("command_tree.json", json.dumps(tree, indent=1, ensure_ascii=False) + "\n")


def test_every_module_with_commands_is_registered() -> None:
    """A module defining `commands` that app.py forgot (or a command its entry lacks) would leave
    commands silently missing: app.py's registry names every module's top-level commands."""
    defined: dict[str, tuple[str, ...]] = {}
    for info in pkgutil.iter_modules(studio.cli.__path__):
        module = importlib.import_module(f"studio.cli.{info.name}")
        found = getattr(module, "commands", None)
        if isinstance(found, typer.Typer):
            name = found.info.name
            defined[info.name] = (name,) if isinstance(name, str) else tuple(typer.main.get_group(found).commands)
    assert defined == COMMAND_MODULES


def test_groups_are_named_and_the_rest_is_merged_into_the_top_level() -> None:
    root = typer.main.get_command(app)
    commands = getattr(root, "commands", {})
    assert {"import", "export", "bank", "list", "judge", "tui", "demo"} <= set(commands)
    assert "" not in commands  # an unnamed Typer never shows up as a nameless group
