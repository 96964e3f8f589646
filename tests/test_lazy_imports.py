"""The facade's services imported on first use (`services/facade/lazy.py`) stay visible to the type
checker and to the layer contracts: every module a stand-in names is imported under
`TYPE_CHECKING` in the same module, under the same name, so mypy checks the calls and
`lint-imports` sees the dependency. And a stand-in behaves as what it stands for."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from studio.services.facade.lazy import LazyModule, lazy_function, lazy_module

STUDIO = Path(__file__).resolve().parents[1] / "studio"
USERS = sorted([*(STUDIO / "services" / "facade").glob("*.py"), STUDIO / "services" / "project.py"])


def stand_ins(tree: ast.Module) -> dict[str, str]:
    """Name -> dotted target (`module` or `module.name`) of every `x = lazy_module(...)` or
    `x = lazy_function(...)` at module level, the `else:` of `if TYPE_CHECKING:` included."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            func = node.value.func
            if isinstance(func, ast.Name) and func.id in ("lazy_module", "lazy_function"):
                args = [a.value for a in node.value.args if isinstance(a, ast.Constant)]
                target = node.targets[0]
                assert isinstance(target, ast.Name)
                found[target.id] = ".".join(str(a) for a in args)
    return found


def type_checking_imports(tree: ast.Module) -> dict[str, str]:
    """Name -> dotted target of every import under `if TYPE_CHECKING:`."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for inner in node.body:
                if isinstance(inner, ast.ImportFrom) and inner.module:
                    for alias in inner.names:
                        found[alias.asname or alias.name] = f"{inner.module}.{alias.name}"
    return found


@pytest.mark.parametrize("path", USERS, ids=lambda p: p.name)
def test_every_stand_in_has_its_import_for_the_checkers(path: Path) -> None:
    tree = ast.parse(path.read_text("utf-8"))
    lazy, typed = stand_ins(tree), type_checking_imports(tree)
    assert {name: typed.get(name) for name in lazy} == lazy


def test_the_facade_uses_stand_ins() -> None:
    assert sum(len(stand_ins(ast.parse(p.read_text("utf-8")))) for p in USERS) > 40  # the check is not vacuous


@pytest.mark.parametrize("path", USERS, ids=lambda p: p.name)
def test_every_stand_in_names_something_that_exists(path: Path) -> None:
    for target in stand_ins(ast.parse(path.read_text("utf-8"))).values():
        try:
            importlib.import_module(target)
        except ModuleNotFoundError:
            module, name = target.rsplit(".", 1)
            assert hasattr(importlib.import_module(module), name), target


def test_a_stand_in_imports_on_first_use_and_acts_as_the_module() -> None:
    stand_in = lazy_module("json")
    assert isinstance(stand_in, LazyModule) and "json" in repr(stand_in)
    assert stand_in.dumps([1]) == "[1]"
    dumps = lazy_function("json", "dumps")
    assert dumps({"a": 1}) == '{"a": 1}' and dumps.__name__ == "dumps"
    with pytest.raises(AttributeError):
        _ = stand_in.no_such_name
