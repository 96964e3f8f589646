"""Whether the studio may write a project file, decided before it opens it.

DuckDB opened for writing needs the file writable and, for its write-ahead log (`<file>.wal`),
a folder it may write in. Where either is missing the studio opens the file read-only: every read
works, and a write is refused in one sentence instead of failing inside DuckDB.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

Writable = Callable[[Path], bool]

ASKED = "reading only was asked for"
FILE_NOT_WRITABLE = "the file is not writable"
FOLDER_NOT_WRITABLE = "its folder is not writable, and DuckDB writes its log beside the file"


def can_write(path: Path) -> bool:
    """May this process write `path`? access(2) with W_OK knows read-only mounts and immutable
    files; for root it answers yes where only the mode forbids it, and root may indeed write there."""
    return os.access(path, os.W_OK)


def read_only_reason(path: Path, *, asked: bool, writable: Writable = can_write) -> str | None:
    """Why the existing project file at `path` is to be opened read-only; None to open it for writing."""
    if asked:
        return ASKED
    if not writable(path):
        return FILE_NOT_WRITABLE
    if not writable(path.parent):
        return FOLDER_NOT_WRITABLE
    return None
