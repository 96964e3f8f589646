"""Reading published text files: gzip by magic bytes, BOM, strict UTF-8, empty files, first lines."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from studio.domain.errors import InputError
from studio.formats.text_input import decode_utf8, first_line, numbered_lines, read_bytes, read_text

BOM = b"\xef\xbb\xbf"


def test_gzip_is_recognised_by_its_magic_bytes_not_its_name(tmp_path: Path) -> None:
    hidden = tmp_path / "run.txt"
    hidden.write_bytes(gzip.compress(b"q1 Q0 d1 1 2 t\n"))
    assert read_bytes(hidden) == b"q1 Q0 d1 1 2 t\n"


def test_plain_file_named_gz_is_read_as_it_is(tmp_path: Path) -> None:
    plain = tmp_path / "run.txt.gz"
    plain.write_bytes(b"q1 Q0 d1 1 2 t\n")
    assert read_text(plain) == "q1 Q0 d1 1 2 t\n"


def test_broken_gzip_is_refused_with_the_file_name(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gz"
    broken.write_bytes(gzip.compress(b"q1 Q0 d1 1 2 t\n" * 100)[:30])
    with pytest.raises(InputError) as caught:
        read_text(broken)
    assert caught.value.file == str(broken) and "gzip" in caught.value.reason


def test_missing_file_is_refused_with_the_file_name(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        read_text(tmp_path / "nowhere.txt")
    assert caught.value.file == str(tmp_path / "nowhere.txt")


@pytest.mark.parametrize("compress", [False, True])
def test_a_leading_bom_is_dropped(tmp_path: Path, compress: bool) -> None:
    data = BOM + "q1\tcafé\n".encode()
    path = tmp_path / "topics.tsv"
    path.write_bytes(gzip.compress(data) if compress else data)
    assert read_text(path) == "q1\tcafé\n"


def test_only_a_leading_bom_is_dropped() -> None:
    assert decode_utf8(b"a\n" + BOM + b"b", "f") == "a\n\ufeffb"


@pytest.mark.parametrize("compress", [False, True])
def test_invalid_utf8_is_reported_with_its_line(tmp_path: Path, compress: bool) -> None:
    data = b"line one\n\nline three \xe9t\xe9\nline four\n"
    path = tmp_path / "bad.txt"
    path.write_bytes(gzip.compress(data) if compress else data)
    with pytest.raises(InputError) as caught:
        read_text(path)
    assert (caught.value.file, caught.value.line) == (str(path), 3)
    assert "invalid UTF-8" in caught.value.reason and "0xe9" in caught.value.reason


def test_invalid_utf8_on_the_first_line_is_line_one() -> None:
    with pytest.raises(InputError) as caught:
        decode_utf8(b"\xff\nok\n", "f")
    assert caught.value.line == 1


@pytest.mark.parametrize("data", [b"", b"\n\n", b" \t\r\n  ", BOM, BOM + b"\r\n"])
def test_empty_or_whitespace_only_file_is_refused(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "empty.txt"
    path.write_bytes(data)
    with pytest.raises(InputError) as caught:
        read_text(path)
    assert caught.value.line is None and "empty" in caught.value.reason


def test_empty_gzipped_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "empty.gz"
    path.write_bytes(gzip.compress(b"\n"))
    with pytest.raises(InputError, match="empty"):
        read_text(path)


def test_numbered_lines_skip_blanks_keep_numbers_and_drop_cr() -> None:
    assert list(numbered_lines("a\r\n\r\n  \nb c\r\nd")) == [(1, "a"), (4, "b c"), (5, "d")]


@pytest.mark.parametrize(
    ("data", "compress"),
    [
        (b"q1 Q0 d1 1 2 tag\nq1 Q0 d2 2 1 tag\n", False),
        (b"q1 Q0 d1 1 2 tag\nq1 Q0 d2 2 1 tag\n", True),
        (BOM + b"q1 Q0 d1 1 2 tag\r\n", False),
        (BOM + b"q1 Q0 d1 1 2 tag\r\n", True),
        (b"\n  \r\n\tq1 Q0 d1 1 2 tag\n", False),
    ],
)
def test_first_line_is_the_first_non_blank_line(tmp_path: Path, data: bytes, compress: bool) -> None:
    path = tmp_path / "run"
    path.write_bytes(gzip.compress(data) if compress else data)
    number, line = first_line(path)
    assert line.strip(" \t") == "q1 Q0 d1 1 2 tag"
    assert number == data.count(b"\n", 0, data.index(b"q1")) + 1


@pytest.mark.parametrize("odd", ["\u00a0", "\x0b", "\x0c"])
def test_first_line_counts_a_line_of_other_blanks_as_a_line(tmp_path: Path, odd: str) -> None:
    # Only spaces and tabs separate TREC columns: a line of any other blank holds a column.
    path = tmp_path / "run"
    path.write_bytes(f" \n{odd}\nq1 Q0 d1 1 2 tag\n".encode())
    assert first_line(path) == (2, odd)


def test_first_line_skips_comment_lines_after_blanks(tmp_path: Path) -> None:
    path = tmp_path / "run"
    path.write_bytes(b"# header\n \t# indented\nq1 Q0 d1 1 2 tag\n")
    assert first_line(path, comment="#") == (3, "q1 Q0 d1 1 2 tag")


def test_first_line_of_an_empty_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "empty"
    path.write_bytes(b"\n \n")
    with pytest.raises(InputError, match="empty"):
        first_line(path)


def test_first_line_reports_invalid_utf8_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bad"
    path.write_bytes(b"\n\nq1 Q0 d\xff 1 2 t\n")
    with pytest.raises(InputError) as caught:
        first_line(path)
    assert caught.value.line == 3
