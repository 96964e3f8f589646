"""Where an export goes: regular files replaced atomically, everything else written in place, and
a write the system refuses reported as the studio's error with nothing half-written."""

from __future__ import annotations

import errno
import gzip
import os
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from studio.domain.errors import OutputError, UsageError
from studio.services.exports.delivery import deliver

TEXT = "".join(f"q{n} 0 d{n} {n % 4}\n" for n in range(20_000))  # past a pipe's 64 KiB buffer


def leftovers(folder: Path) -> list[str]:
    """Temporary files an export left behind in `folder`."""
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".partial"))


class FifoReader:
    """A thread reading a FIFO: all of it, or only its first `keep` bytes before closing it."""

    def __init__(self, path: Path, keep: int | None = None) -> None:
        self.path, self.keep, self.data = path, keep, b""
        self.thread = threading.Thread(target=self._read, daemon=True)

    def _read(self) -> None:
        with self.path.open("rb") as fifo:
            self.data = fifo.read() if self.keep is None else fifo.read(self.keep)

    def __enter__(self) -> FifoReader:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.thread.join(timeout=10)
        assert not self.thread.is_alive(), "the FIFO's reader never finished"


DEVICES = {"null": (1, 3), "full": (1, 7)}  # Linux's numbers of /dev/null and /dev/full


def device_node(folder: Path, name: str) -> Path:
    """/dev/NAME to write to. As root, a node of the same device made in `folder`: an export that
    replaced its target would then replace that node, never the system's device. (Others cannot
    replace anything in /dev: the system's node is safe to use.)"""
    if os.geteuid() != 0:
        return Path("/dev") / name
    path = folder / name
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(*DEVICES[name]))
    except OSError as error:
        pytest.skip(f"cannot make a device node to test with: {error}")
    return path


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    yield path


def refusing_writes(monkeypatch: pytest.MonkeyPatch, code: int, after: int = 1) -> None:
    """os.write takes its first `after - 1` calls' bytes (4 KiB each), then fails with `code`."""
    real_write = os.write
    calls = {"n": 0}

    def write(descriptor: int, data: bytes | memoryview) -> int:
        calls["n"] += 1
        if calls["n"] >= after:
            raise OSError(code, os.strerror(code))
        return real_write(descriptor, bytes(data[:4096]))

    monkeypatch.setattr(os, "write", write)


# -- regular files ---------------------------------------------------------------------------


def test_a_new_file_gets_the_text_and_the_umasks_mode(tmp_path: Path) -> None:
    target = tmp_path / "new.qrels"
    assert deliver(TEXT, target) == str(target)
    umask = os.umask(0)
    os.umask(umask)
    assert target.read_text() == TEXT
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
    assert leftovers(tmp_path) == []


def test_an_existing_file_is_replaced_by_a_new_one_with_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "old.qrels"
    target.write_text("old\n")
    target.chmod(0o640)
    before = target.stat().st_ino
    deliver(TEXT, target)
    assert target.read_text() == TEXT and stat.S_IMODE(target.stat().st_mode) == 0o640
    assert target.stat().st_ino != before, "a regular file is replaced by rename, not rewritten"


def test_a_gz_name_is_gzipped(tmp_path: Path) -> None:
    deliver(TEXT, tmp_path / "q.qrels.gz")
    assert gzip.decompress((tmp_path / "q.qrels.gz").read_bytes()).decode() == TEXT


def test_a_symlink_stays_and_the_file_it_names_is_replaced(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "file.qrels"
    target.write_text("old\n")
    link = tmp_path / "link.qrels"
    link.symlink_to(target)
    deliver(TEXT, link)
    assert link.is_symlink() and link.readlink() == target
    assert target.read_text() == TEXT
    assert leftovers(tmp_path) == [] and leftovers(tmp_path / "real") == []


def test_a_symlink_named_gz_gzips_into_the_file_it_names(tmp_path: Path) -> None:
    link = tmp_path / "latest.gz"
    link.symlink_to("made-today")  # dangling: the file it names is made
    deliver(TEXT, link)
    assert link.is_symlink()
    assert gzip.decompress((tmp_path / "made-today").read_bytes()).decode() == TEXT


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EIO, errno.EDQUOT])
@pytest.mark.parametrize("after", [1, 3])  # the first write, or one in the middle
def test_a_refused_write_leaves_the_earlier_file_and_no_temporary_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, after: int
) -> None:
    target = tmp_path / "labels.qrels"
    target.write_text("the earlier export\n")
    refusing_writes(monkeypatch, code, after)
    with pytest.raises(OutputError, match=f"cannot write {target}: {os.strerror(code)}"):
        deliver(TEXT, target)
    assert target.read_text() == "the earlier export\n"
    assert leftovers(tmp_path) == []


def test_a_refused_write_of_a_new_file_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    refusing_writes(monkeypatch, errno.ENOSPC, after=2)
    with pytest.raises(OutputError):
        deliver(TEXT, tmp_path / "new.qrels")
    assert list(tmp_path.iterdir()) == []


def test_a_target_that_cannot_be_opened_is_bad_usage(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="it is a folder"):
        deliver(TEXT, tmp_path)
    with pytest.raises(UsageError, match="No such file or directory"):
        deliver(TEXT, tmp_path / "missing" / "x.qrels")


# -- what is not a regular file ----------------------------------------------------------------


def test_a_fifo_is_written_in_place_and_its_reader_gets_everything(fifo: Path) -> None:
    with FifoReader(fifo) as reader:
        deliver(TEXT, fifo)
    assert reader.data.decode() == TEXT
    assert stat.S_ISFIFO(fifo.stat().st_mode), "the FIFO was replaced"
    assert leftovers(fifo.parent) == []


def test_a_gz_fifo_gets_gzip(tmp_path: Path) -> None:
    path = tmp_path / "pipe.gz"
    os.mkfifo(path)
    with FifoReader(path) as reader:
        deliver(TEXT, path)
    assert gzip.decompress(reader.data).decode() == TEXT


def test_a_symlink_to_a_fifo_writes_into_the_fifo(fifo: Path) -> None:
    link = fifo.parent / "link"
    link.symlink_to(fifo)
    with FifoReader(fifo) as reader:
        deliver(TEXT, link)
    assert reader.data.decode() == TEXT
    assert link.is_symlink() and stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_fifo_whose_reader_leaves_early_is_an_output_error(fifo: Path) -> None:
    with FifoReader(fifo, keep=10), pytest.raises(OutputError, match="Broken pipe"):
        deliver(TEXT, fifo)
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_dev_null_stays_the_device(tmp_path: Path) -> None:
    null = device_node(tmp_path, "null")
    before = null.stat()
    assert deliver(TEXT, null) == str(null)
    after = null.stat()
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
    assert leftovers(tmp_path) == []


def test_dev_full_is_an_output_error_and_stays_the_device(tmp_path: Path) -> None:
    full = device_node(tmp_path, "full")
    with pytest.raises(OutputError, match=f"cannot write {full}: No space left on device"):
        deliver(TEXT, full)
    assert stat.S_ISCHR(full.stat().st_mode)


# -- stdout ------------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["-", "/dev/stdout"])
def test_dash_and_dev_stdout_are_stdout(target: str, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert deliver(TEXT, target) == "<stdout>"
    assert capsysbinary.readouterr().out.decode() == TEXT
