"""An unexpected error (a bug) ends the studio with exit status 1 and its traceback in a file, which
stderr names: the terminal the studio drew on is cleared when it ends, and a person reporting the
bug needs the whole traceback, not the last screenful."""

from __future__ import annotations

import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

CRASH_STATUS = 1


def write_crash_report(error: BaseException, folder: Path | None = None) -> Path:
    """The traceback of `error` in a new file of `folder` (default: the temporary folder)."""
    folder = folder or Path(tempfile.gettempdir())
    path = folder / f"studio-crash-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.txt"
    path.write_text("".join(traceback.format_exception(error)), encoding="utf-8")
    return path


def report_crash(error: BaseException, folder: Path | None = None) -> int:
    """Write the crash report, name it on stderr, and give the exit status the studio ends with."""
    path = write_crash_report(error, folder)
    print(
        f"studio: an unexpected error ended the studio ({type(error).__name__}: {error}); the traceback is in {path}",
        file=sys.stderr,
    )
    return CRASH_STATUS
