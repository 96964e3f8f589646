"""The services the facade's subjects call, imported when first called.

`Project` gathers every subject (audits, judges, banks, campaigns…), and a command uses one or two:
importing every service (numpy, the audit statistics, the judges) to list a project cost `studio
list` most of its time (docs/design.md#6-performance-budgets; tests/test_startup_imports.py pins
what it loads). A subject names its services as before, each import under `TYPE_CHECKING` for the
type checker and, at run time, one of these stand-ins, which imports the module on first use:

    if TYPE_CHECKING:
        from studio.services.audit import samples as audit_samples
    else:
        audit_samples = lazy_module("studio.services.audit.samples")

Python's import lock makes a first use from two threads (the TUI's workers) import the module once.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType


class LazyModule:
    """A module, imported when one of its names is first read."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


def lazy_module(name: str) -> Any:
    """Module `name`, imported on first use."""
    return LazyModule(name)


def lazy_function(module: str, name: str) -> Callable[..., Any]:
    """Function (or class, to call) `name` of `module`, imported on first call."""
    source = LazyModule(module)

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(source, name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call
