"""Where an export goes: stdout, or a file written atomically (a temporary file in the same
folder, renamed into place), so a reader never sees half of it and an interrupted export leaves
any earlier file untouched. The target `-` means stdout."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from studio.domain.errors import UsageError
from studio.formats.bank_writers import encode

STDOUT = "-"


def deliver(text: str, target: str | Path) -> str:
    """Write `text` to stdout or, atomically, to a file (gzipped when its name ends in .gz)."""
    if str(target) == STDOUT:
        sys.stdout.write(text)
        sys.stdout.flush()
        return "<stdout>"
    path = Path(target)
    data = encode(text, path.name.lower().endswith(".gz"))
    try:
        mode = path.stat().st_mode & 0o777 if path.exists() else _default_mode()
        handle, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror or error}") from error
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(partial, mode)
        os.replace(partial, path)
    except BaseException as error:
        Path(partial).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise UsageError(f"cannot write {path}: {error.strerror or error}") from error
        raise
    return str(path)


def _default_mode() -> int:
    """What `open()` would give a new file: 0o666 less the umask (mkstemp makes 0o600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
