"""Relevance Assessment Studio: audit LLM relevance judgments against people's, and see whether
the system ranking still holds.

`from studio import Project` is the Python API. It is loaded on first use so that importing
a pure layer (``studio.domain``, ``studio.formats``) never pulls in the database.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

DISTRIBUTION = "relevance-assessment-studio"

# The installed distribution's version, so that `studio --version` and reports say what pip
# installed; a checkout put on PYTHONPATH without installing has none.
try:
    __version__ = version(DISTRIBUTION)
except PackageNotFoundError:
    __version__ = "unknown (not installed)"

if TYPE_CHECKING:
    from studio.services.project import Project

__all__ = ["Project", "__version__"]


def __getattr__(name: str) -> Any:
    if name == "Project":
        from studio.services.project import Project

        return Project
    raise AttributeError(f"module 'studio' has no attribute {name!r}")
