"""Reading text files the way people publish them: gzip or not, CRLF or LF, with or without BOM.

Invalid UTF-8 and empty files are refused with the file and line, never guessed around.

Files of lines (`read_lines`) are streamed: a chunk at a time, however far a gzip expands, so
memory stays flat whatever the file's size. Runs of blank lines are skipped a chunk at a time
(a gigabyte of newlines costs no Python loop per line), and a line longer than the format allows
is refused with its number as soon as the reader has seen that many bytes of it, never read
whole. Files read whole (`read_text`: leaderboards, CSV tables) are refused past
`MAX_TEXT_BYTES`.
"""

from __future__ import annotations

import gzip
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, cast

from studio.domain.errors import InputError

GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = "\ufeff"
# A line of a file of records (JSONL, TSV): one record may hold a whole document, or (Rubric's
# graded files) every paragraph judged for a topic, so the cap is generous; it still keeps a
# line that is really a whole gigabyte-sized file from being read into memory.
MAX_LINE_BYTES = 64 << 20
# A line of a TREC run or qrels file: six short columns (and ignored junk after them). The bulk
# reader (`studio.store.fast_path`) reads no longer line either.
TREC_LINE_BYTES = 1 << 20
# A file read whole rather than line by line.
MAX_TEXT_BYTES = 256 << 20
CHUNK_BYTES = 1 << 20
_NOT_BLANK = re.compile(rb"[^ \t\r\n]")


def size_text(count: int) -> str:
    """A byte count as people read it: `1 MiB`, `64 MiB`, `300 bytes`."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if count >= 1 << shift and count % (1 << shift) == 0:
            return f"{count >> shift} {unit}"
    return f"{count} bytes"


def not_a_file(path: Path) -> str:
    """Why `path` cannot be read as a data file. A pipe (`<(zcat …)`) or device can be read only
    once and has no identity to record, while the studio reads a file to sniff its layout and again
    to load it."""
    if not path.exists():
        return "no such file"
    if path.is_dir():
        return "a directory, not a file"
    return "not a regular file (a pipe, socket or device): write it to a file first"


def open_binary(path: Path) -> BinaryIO:
    """The file's bytes as a stream, decompressed when it is gzip (by its magic bytes, not its
    name). Reading may raise OSError, EOFError or zlib.error (`_failed` words them)."""
    with path.open("rb") as raw:
        compressed = raw.read(2) == GZIP_MAGIC
    return cast(BinaryIO, gzip.open(path, "rb") if compressed else path.open("rb"))


def _failed(path: Path, error: Exception) -> InputError:
    """A failed read as a refusal naming the file."""
    if isinstance(error, OSError) and error.strerror and not isinstance(error, gzip.BadGzipFile):
        return InputError(str(path), None, f"cannot read the file: {error.strerror}")
    return InputError(str(path), None, f"broken gzip data: {error}")


def read_bytes(path: Path, limit: int = MAX_TEXT_BYTES) -> bytes:
    """The file's content, decompressed when it is gzip; refused past `limit` bytes (decompressed:
    a small gzip can expand to any size)."""
    try:
        with open_binary(path) as stream:
            data = stream.read(limit + 1)
    except (OSError, EOFError, zlib.error) as error:
        raise _failed(path, error) from error
    if len(data) > limit:
        raise InputError(str(path), None, f"the file is larger than {size_text(limit)}, more than this format allows")
    return data


def decode_utf8(data: bytes, source: str) -> str:
    """Decode strictly; a bad byte is reported with its line number. A leading BOM is dropped."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError(source, line, f"invalid UTF-8 (byte 0x{data[error.start]:02x})") from error
    return text[1:] if text.startswith(UTF8_BOM) else text


def read_text(path: Path) -> str:
    """The whole file as text; refuses a file with nothing but whitespace in it."""
    text = decode_utf8(read_bytes(path), str(path))
    if not text.strip():
        raise InputError(str(path), None, "the file is empty")
    return text


class TextLines:
    """The lines of a (possibly gzipped) UTF-8 file that hold more than spaces, tabs and CRs, as
    (line number, line without its line end and the CRs before it), read as they are needed.
    Each pass over it reads the file again. A line longer than `max_line_bytes` (its bytes
    without the LF) is refused with its number; so is a file without such a line, as empty."""

    def __init__(self, path: Path, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.path = path
        self.source = str(path)
        self.max_line_bytes = max_line_bytes

    def __iter__(self) -> Iterator[tuple[int, str]]:
        found = False
        try:
            with open_binary(self.path) as stream:
                for number, data in _raw_lines(stream, self.source, self.max_line_bytes):
                    line = _decoded(data, self.source, number).rstrip("\r")
                    if number == 1 and line.startswith(UTF8_BOM):
                        line = line[1:]
                    if line.strip(" \t\r"):
                        found = True
                        yield number, line
        except (OSError, EOFError, zlib.error) as error:
            raise _failed(self.path, error) from error
        if not found:
            raise InputError(self.source, None, "the file is empty")

    def first(self) -> str:
        """The first line holding more than blanks (the file is read no further)."""
        for _, line in self:
            return line
        return ""  # never reached: an empty file is refused


# Text given whole (a string, as tests and small inputs come) or a file read line by line.
Text = str | TextLines


def read_lines(path: Path, max_line_bytes: int = MAX_LINE_BYTES) -> TextLines:
    """The file's lines, streamed (`TextLines`); nothing is read until they are."""
    return TextLines(path, max_line_bytes)


def _decoded(data: bytes, source: str, number: int) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(source, number, f"invalid UTF-8 (byte 0x{data[error.start]:02x})") from error


def _too_long(source: str, number: int, cap: int) -> InputError:
    return InputError(source, number, f"the line is longer than {size_text(cap)}, more than this format allows")


def _raw_lines(stream: BinaryIO, source: str, cap: int) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes without the LF) of every line holding a byte other than a space, tab,
    CR or LF. Blank runs are skipped with one search per chunk; at most about `cap` bytes of a
    line are held before it is refused."""
    buffer, pos, number, ended = stream.read(CHUNK_BYTES), 0, 1, False
    while True:
        found = _NOT_BLANK.search(buffer, pos)
        if found is None:  # nothing but blank lines up to the end of the buffer
            last = buffer.rfind(b"\n", pos)
            if last >= 0:
                number += buffer.count(b"\n", pos, last + 1)
                pos = last + 1
            if ended or not buffer:
                return
            if len(buffer) - pos > cap:
                raise _too_long(source, number, cap)
        else:
            start = max(pos, buffer.rfind(b"\n", pos, found.start()) + 1)
            number += buffer.count(b"\n", pos, start)
            pos = start
            end = buffer.find(b"\n", found.start(), pos + cap + 1)
            if end >= 0:
                yield number, buffer[pos:end]
                number, pos = number + 1, end + 1
                continue
            if len(buffer) - pos > cap:
                raise _too_long(source, number, cap)
            if ended:
                yield number, buffer[pos:]
                return
        # More of the file: at least as much as is held, so a long line costs linear time.
        more = stream.read(max(CHUNK_BYTES, len(buffer) - pos))
        buffer, pos, ended = buffer[pos:] + more, 0, not more


def numbered_lines(text: Text) -> Iterator[tuple[int, str]]:
    """(line number, line) for every non-blank line; CR of CRLF endings is removed. A file with
    none is refused as empty."""
    if isinstance(text, str):
        for number, line in enumerate(text.split("\n"), start=1):
            line = line.rstrip("\r")
            if line.strip():
                yield number, line
        return
    found = False
    for number, line in text:
        if line.strip():
            found = True
            yield number, line
    if not found:
        raise InputError(text.source, None, "the file is empty")


def first_text(text: Text) -> str:
    """The first line of `text` holding more than blanks, without its leading blanks ('' when
    there is none)."""
    if isinstance(text, str):
        return text.lstrip(UTF8_BOM + " \t\r\n")
    for _, line in numbered_lines(text):
        return line.lstrip()
    return ""


def first_line(path: Path, comment: str | None = None, max_line_bytes: int = MAX_LINE_BYTES) -> tuple[int, str]:
    """(line number, line without its line end) of the first line of a (possibly gzipped) file
    holding more than spaces and tabs, without reading all of it; with `comment`, lines whose
    first characters after spaces and tabs are `comment` are skipped too."""
    for number, line in TextLines(path, max_line_bytes):
        if not (comment and line.lstrip(" \t").startswith(comment)):
            return number, line
    raise InputError(str(path), None, "the file is empty")
