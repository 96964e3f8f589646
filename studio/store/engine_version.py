"""The version of the DuckDB library the project files are read with."""

from __future__ import annotations

import duckdb


def duckdb_version() -> str:
    """DuckDB's version as the loaded library reports it (e.g. "1.4.1")."""
    return str(duckdb.__version__)
