"""Relevance Assessment Studio: audit LLM relevance judgments against people's, and see whether
the system ranking still holds.

`from studio import Project` is the Python API. It is loaded on first use so that importing
a pure layer (``studio.domain``, ``studio.formats``) never pulls in the database.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

DISTRIBUTION = "relevance-assessment-studio"

if TYPE_CHECKING:
    from studio.services.project import Project

    __version__: str

__all__ = ["Project", "__version__"]


@cache
def installed_version() -> str:
    """The installed distribution's version, so that `studio --version` and reports say what pip
    installed; a checkout put on PYTHONPATH without installing has none. Read when first asked:
    importlib.metadata costs more than most commands' own imports."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "unknown (not installed)"


def __getattr__(name: str) -> Any:
    if name == "Project":
        from studio.services.project import Project

        return Project
    if name == "__version__":
        return installed_version()
    raise AttributeError(f"module 'studio' has no attribute {name!r}")
