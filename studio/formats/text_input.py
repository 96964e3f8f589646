"""Reading text files the way people publish them: gzip or not, CRLF or LF, with or without BOM.

Invalid UTF-8 and empty files are refused with the file and line, never guessed around.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from pathlib import Path

from studio.domain.errors import InputError

GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = "\ufeff"


def not_a_file(path: Path) -> str:
    """Why `path` cannot be read as a data file. A pipe (`<(zcat …)`) or device can be read only
    once and has no identity to record, while the studio reads a file to sniff its layout and again
    to load it."""
    if not path.exists():
        return "no such file"
    if path.is_dir():
        return "a directory, not a file"
    return "not a regular file (a pipe, socket or device): write it to a file first"


def read_bytes(path: Path) -> bytes:
    """The file's content, decompressed when it is gzip (by its magic bytes, not its name)."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise InputError(str(path), None, f"cannot read the file: {error.strerror}") from error
    if raw[:2] == GZIP_MAGIC:
        try:
            return gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as error:
            raise InputError(str(path), None, f"broken gzip data: {error}") from error
    return raw


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


def numbered_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) for every non-blank line; CR of CRLF endings is removed."""
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        if line.strip():
            yield number, line


def first_line(path: Path, comment: str | None = None) -> tuple[int, str]:
    """(line number, line without its line end) of the first line of a (possibly gzipped) file
    holding more than spaces and tabs, without reading all of it; with `comment`, lines whose
    first characters after spaces and tabs are `comment` are skipped too."""
    try:
        with path.open("rb") as raw:
            compressed = raw.read(2) == GZIP_MAGIC
        with gzip.open(path, "rb") if compressed else path.open("rb") as stream:
            for number, data in enumerate(stream, start=1):
                if number == 1 and data.startswith(UTF8_BOM.encode()):
                    data = data[3:]
                if data.strip(b" \t\r\n"):
                    try:
                        line = data.decode("utf-8").rstrip("\r\n")
                    except UnicodeDecodeError as error:
                        byte = data[error.start]
                        raise InputError(str(path), number, f"invalid UTF-8 (byte 0x{byte:02x})") from error
                    if not (comment and line.lstrip(" \t").startswith(comment)):
                        return number, line
    except (OSError, EOFError, zlib.error) as error:
        raise InputError(str(path), None, f"cannot read the file: {error}") from error
    raise InputError(str(path), None, "the file is empty")
