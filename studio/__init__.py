"""Relevance Assessment Studio: audit LLM relevance judgments against people's, and see whether
the system ranking still holds.

`from studio import Project` is the Python API. It is loaded on first use so that importing
a pure layer (``studio.domain``, ``studio.formats``) never pulls in the database.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from studio.services.project import Project

__all__ = ["Project", "__version__"]


def __getattr__(name: str) -> Any:
    if name == "Project":
        from studio.services.project import Project

        return Project
    raise AttributeError(f"module 'studio' has no attribute {name!r}")
