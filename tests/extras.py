"""The optional extras the tests of some features need, and what a test does where one is absent.

A test that needs an extra says so with `@pytest.mark.extra("embeddings")` (a folder's tests with
`pytestmark`): where the extra is not installed it skips, naming it and how to install it. `make
check` installs every extra and sets STUDIO_REQUIRE_EXTRAS=1: there, a test skipped for want of
an extra fails instead, so a broken install cannot pass as a green run. The same holds for a
skip made elsewhere with the install hint of `skip_reason` (`pip install -e '.[NAME]'`).

STUDIO_HIDE_EXTRAS=embeddings,team (any of EXTRAS) makes this test process behave as though those
were not installed (their modules cannot be imported or found), to see that their tests skip and
that every other test does without them, without a second environment.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import re
import sys
from collections.abc import Sequence
from types import ModuleType

import pytest

# Each extra of pyproject.toml and the modules whose absence means it is not installed.
EXTRAS: dict[str, tuple[str, ...]] = {
    "embeddings": ("torch", "sentence_transformers"),
    "irds": ("ir_datasets",),
    "team": ("psycopg",),
    "server": ("uvicorn", "fastapi", "sse_starlette", "starlette_context"),  # llama-cpp-python[server], in dev
}
INSTALL = {"server": "dev"}  # an extra installed through another one
# Fixtures that need an extra: their users need it too (a new test inherits the need).
FIXTURE_EXTRAS = {"embedder": "embeddings", "pg_cluster": "team", "llama_server": "server"}
REQUIRE = os.environ.get("STUDIO_REQUIRE_EXTRAS") == "1"
HIDDEN = [name for name in os.environ.get("STUDIO_HIDE_EXTRAS", "").split(",") if name]
HINT = re.compile(r"pip install -e '\.\[(\w+)\]'")


class _Hidden(importlib.abc.MetaPathFinder):
    """A finder before all others that says the hidden modules (and those inside them) are not
    installed: importing one, or finding its spec, raises ModuleNotFoundError. (Setting them to
    None in sys.modules would not do: libraries such as scipy look there for torch.)"""

    def __init__(self, modules: Sequence[str]) -> None:
        self.modules = tuple(modules)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if any(fullname == m or fullname.startswith(f"{m}.") for m in self.modules):
            raise ModuleNotFoundError(f"No module named {fullname!r} (hidden: STUDIO_HIDE_EXTRAS)", name=fullname)
        return None


def hide_extras() -> None:
    """Make the extras STUDIO_HIDE_EXTRAS names unimportable and unfindable in this process."""
    modules: list[str] = []
    for name in HIDDEN:
        if name not in EXTRAS:
            raise ValueError(f"STUDIO_HIDE_EXTRAS: no extra {name!r} (one of {', '.join(EXTRAS)})")
        modules += EXTRAS[name]
    if modules:
        sys.meta_path.insert(0, _Hidden(modules))


def missing(extra: str) -> list[str]:
    """The modules of `extra` that cannot be found."""
    found = []
    for module in EXTRAS[extra]:
        try:
            present = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a parent missing, or hidden
            present = False
        if not present:
            found.append(module)
    return found


def skip_reason(extra: str) -> str:
    return (
        f"the {extra} extra is not installed ({', '.join(missing(extra))} missing): "
        f"pip install -e '.[{INSTALL.get(extra, extra)}]'"
    )


def check_extras(item: pytest.Item) -> None:
    """Skip `item` (or fail it under STUDIO_REQUIRE_EXTRAS=1) when an extra it is marked with, or
    one a fixture it uses needs, is absent."""
    needed = [extra for mark in item.iter_markers("extra") for extra in mark.args]
    needed += [FIXTURE_EXTRAS[name] for name in getattr(item, "fixturenames", ()) if name in FIXTURE_EXTRAS]
    for extra in needed:
        if extra not in EXTRAS:
            raise ValueError(f"{item.nodeid}: no extra {extra!r} (one of {', '.join(EXTRAS)})")
        if missing(extra):
            skip(skip_reason(extra))


def skip(reason: str) -> None:
    if REQUIRE:
        pytest.fail(f"STUDIO_REQUIRE_EXTRAS=1, yet {reason}", pytrace=False)
    pytest.skip(reason)


def extra_of_missing_module(error: BaseException) -> str | None:
    """The extra whose module a ModuleNotFoundError says is missing (a test module importing it at
    its top cannot be collected without it), if it is one."""
    if not isinstance(error, ModuleNotFoundError) or error.name is None:
        return None
    name = error.name
    return next(
        (extra for extra, modules in EXTRAS.items() if any(name == m or name.startswith(f"{m}.") for m in modules)),
        None,
    )


def skipped_for_an_extra(reason: str) -> str | None:
    """The extra a skip's reason names by its install hint, if any."""
    found = HINT.search(reason)
    return None if found is None else found.group(1)
