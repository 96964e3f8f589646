"""Where an export goes, written as Unix tools write their output:

* `-` and `/dev/stdout` are stdout;
* a DuckDB database (a project) or a file beside one (its write-ahead log, its lock), however the
  path is spelled, is refused: an export never replaces a project;
* a regular file, or a new one, is written atomically: a temporary file in the same folder,
  renamed over it, so a reader never sees half of it and a failed export leaves the earlier file
  as it was (the temporary file of an export that was killed is removed by the next export
  there). A symlink is followed: the file it names is replaced and the link stays;
* anything else (a FIFO, a character device such as /dev/null or a terminal, a descriptor named
  through /dev/fd) is written in place and never replaced: a rename would put a regular file where
  the device or the FIFO was, and the FIFO's reader would get nothing.

A target named `….gz` is gzipped. A target that cannot be opened (no such folder, no permission, a
folder) is a UsageError; a write the system refuses (a full disk, an I/O error, a FIFO whose reader
went away) is an OutputError, with the temporary file removed. On stdout a closed pipe is the
reader's choice and passes as BrokenPipeError for the front end to end quietly.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
import tempfile
from pathlib import Path

from studio.domain.errors import WRITE_FAILURES, OutputError, UsageError
from studio.formats.bank_writers import encode
from studio.store.project_files import database_behind

STDOUT = "-"
STDOUT_NAMES = frozenset({STDOUT, "/dev/stdout"})
# A process's own descriptors, whatever file they are open on: written through, never replaced.
_DESCRIPTOR = re.compile(r"/dev/(stdin|stderr|fd/\d+)|/proc/(self|\d+)/fd/\d+")


def deliver(text: str, target: str | Path) -> str:
    """Write `text` (gzipped when the target's name ends in .gz) where `target` says, as the
    module's docstring describes; the name the target is reported by."""
    name = str(target)
    data = encode(text, name.lower().endswith(".gz"))
    if name in STDOUT_NAMES:
        _to_stdout(data)
        return "<stdout>"
    path = Path(target)
    mode = _mode_of(path)
    if mode is not None and stat.S_ISDIR(mode):
        raise UsageError(f"cannot write {path}: it is a folder")
    refuse_a_database(path)  # a descriptor too: /proc/self/fd/N may be the project's own
    if _DESCRIPTOR.fullmatch(name) or (mode is not None and not stat.S_ISREG(mode)):
        _write_in_place(data, path)
    else:
        _replace_atomically(data, Path(os.path.realpath(path)), path, mode)
    return name


def refuse_a_database(path: Path) -> None:
    """A UsageError when `path` is a DuckDB file or one of the files beside it (a project, its
    write-ahead log, its lock): an export or a report never writes over a project."""
    database = database_behind(path)
    if database is None:
        return
    if Path(os.path.realpath(path)) == database:
        what = "it is a DuckDB database (a project)"
    else:
        what = f"it belongs to the DuckDB database {database} (its write-ahead log or lock)"
    raise UsageError(f"cannot write {path}: {what}; nothing is written over a project: choose another file")


def _mode_of(path: Path) -> int | None:
    """The mode of what `path` names, symlinks followed; None when nothing is there yet."""
    try:
        return path.stat().st_mode
    except FileNotFoundError:
        return None
    except OSError as error:
        raise _refused(str(path), error) from error


def _to_stdout(data: bytes) -> None:
    """The bytes on stdout, after what was printed there before."""
    try:
        sys.stdout.flush()
        out = getattr(sys.stdout, "buffer", None)
        if out is None:  # a text-only stream (a program embedding the studio): the text itself
            sys.stdout.write(data.decode("utf-8"))
            sys.stdout.flush()
        else:
            out.write(data)
            out.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        raise _refused("to stdout", error) from error


def _write_in_place(data: bytes, path: Path) -> None:
    """Write into what `path` names without replacing it (a FIFO waits here for its reader)."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_NOCTTY)
    except OSError as error:
        raise _refused(str(path), error) from error
    try:
        _write_all(descriptor, data)
    except OSError as error:
        raise _refused(str(path), error) from error
    finally:
        os.close(descriptor)


def _replace_atomically(data: bytes, real: Path, shown: Path, mode: int | None) -> None:
    """Write a temporary file beside `real` and rename it over `real` (`shown`: the name given)."""
    _remove_abandoned(real)
    try:
        handle, partial = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.{os.getpid()}-", suffix=".partial")
    except OSError as error:
        raise _refused(str(shown), error) from error
    try:
        try:
            _write_all(handle, data)
            os.fsync(handle)
        finally:
            os.close(handle)
        os.chmod(partial, stat.S_IMODE(mode) if mode is not None else _default_mode())
        os.replace(partial, real)
    except BaseException as error:
        Path(partial).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise _refused(str(shown), error) from error
        raise


def _remove_abandoned(real: Path) -> None:
    """Remove the temporary files earlier exports to `real` left when they were killed (their
    process is gone); one a running export is writing stays."""
    pattern = re.compile(re.escape(f".{real.name}.") + r"(\d+)-\w+\.partial")
    try:
        names = os.listdir(real.parent)
    except OSError:
        return  # the folder cannot be listed: the write that follows says why
    for name in names:
        found = pattern.fullmatch(name)
        if found is not None and not _running(int(found.group(1))):
            Path(real.parent, name).unlink(missing_ok=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it runs
        return True
    return True


def _write_all(descriptor: int, data: bytes) -> None:
    """os.write until every byte is written (a pipe or a device may take part of it at a time)."""
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]


def _refused(what: str, error: OSError) -> UsageError | OutputError:
    """The studio's error for a failed write: the system refusing the bytes (OutputError, exit 1),
    or a target that cannot be written at all (UsageError, exit 2)."""
    message = f"cannot write {what}: {error.strerror or error}"
    if error.errno in WRITE_FAILURES or error.errno == errno.EPIPE:
        return OutputError(message)
    return UsageError(message)


def _default_mode() -> int:
    """What `open()` would give a new file: 0o666 less the umask (mkstemp makes 0o600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def output_folder(folder: Path) -> Path:
    """A folder to write an export's files into, made when missing (its parents too); a UsageError
    when the path is a file or cannot be made."""
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"cannot write into {folder}: it is a file, not a folder (give a folder's path)")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"cannot make the folder {folder}: {error.strerror or error}") from None
    return folder


def inside(root: Path, *parts: str) -> Path:
    """`root / parts…` when it resolves inside `root` (no `..`, no absolute part, no symlink out of
    it); a UsageError naming the part otherwise: a name from the project never writes elsewhere."""
    target = root.joinpath(*parts)
    if not target.resolve().is_relative_to(root.resolve()):
        raise UsageError(f"{'/'.join(parts)!r} would be written outside {root}: refused")
    return target
