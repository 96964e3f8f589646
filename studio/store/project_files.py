"""The files a project is made of, so that no command writes over them unasked.

A project is its DuckDB file and the files DuckDB and the studio keep beside it: the write-ahead
log (`.wal`), the turn-taking files (`.lock`, `.lock.wanted`) and a sample being built
(`.building`, `.building.wal`). A path names one of them however it is spelled: relative or
absolute, through a symbolic link, or as a hard link (which holds the same bytes, so it is a DuckDB
file itself). Exports and reports ask here before they replace a file.
"""

from __future__ import annotations

import os
from pathlib import Path

from studio.store.file_identity import not_duckdb

COMPANIONS = (".wal", ".lock.wanted", ".lock", ".building.wal", ".building")


def database_behind(path: str | Path) -> Path | None:
    """The DuckDB file `path` is, or is a companion of (symbolic links followed); None when neither."""
    real = os.path.realpath(path)
    candidates = [real] + [real[: -len(suffix)] for suffix in COMPANIONS if real.endswith(suffix)]
    for candidate in candidates:
        if _is_database(Path(candidate)):
            return Path(candidate)
    return None


def _is_database(path: Path) -> bool:
    try:
        return path.is_file() and not_duckdb(path) is None
    except OSError:  # unreadable: not known to be a database; the write that follows says why it fails
        return False
