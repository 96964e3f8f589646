"""Resources: files are streamed, whatever a gzip expands to. Blank lines cost no memory, a line
longer than its format allows is refused with its file and line before it is read whole, ids and
numbers have a length cap, and a refusal quotes a long value cut short with its length. Each
refusal exits 2, without a traceback, and leaves the project as it was."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from gates.conftest import fingerprint
from helpers import Studio
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from typer.testing import Result

from studio.domain.names import MAX_ID_BYTES
from studio.domain.numbers import GRADE_LIMIT, MAX_NUMBER_LENGTH
from studio.formats import text_input
from studio.formats.text_input import TREC_LINE_BYTES, numbered_lines, read_lines

Write = Callable[[str, str | bytes], Path]
MB = 1 << 20
# Peak resident memory a command may reach on these files: the interpreter, DuckDB and the
# studio take about 200 MB; a file held whole (or split into a list of lines) takes gigabytes.
MEMORY_BOUND_MB = 700


def gzipped(path: Path, parts: Iterable[bytes]) -> Path:
    """Write `parts` gzipped to `path` without holding them all (a highly compressible file)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    with path.open("wb") as out:
        for part in parts:
            out.write(packer.compress(part))
        out.write(packer.flush())
    return path


def repeated(data: bytes, total: int) -> Iterable[bytes]:
    """`total` bytes of `data` repeated, 16 MB at a time."""
    block = data * (16 * MB // len(data))
    while total > 0:
        yield block[:total]
        total -= len(block)


# Runs `python -m studio ARGS…` and reports its exit code, stderr and peak resident memory.
MEASURE = """
import json, resource, subprocess, sys
done = subprocess.run([sys.executable, "-m", "studio", *sys.argv[1:]], capture_output=True, text=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
print(json.dumps({"code": done.returncode, "stderr": done.stderr, "peak_mb": peak}))
"""


def measured(project: Path, *args: object) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, "--db", str(project), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, object] = json.loads(done.stdout)
    return found


def refused(project: Path, run: Callable[[], Result], *fragments: str) -> Result:
    before = fingerprint(project)
    result = run()
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr[:2000]
    assert len(result.stderr) < 2000, result.stderr[:2000]
    assert fingerprint(project) == before
    return result


# -- memory stays flat whatever a gzip expands to -----------------------------------------------------


@pytest.mark.process
def test_a_gzip_of_200_mb_of_blank_lines_is_refused_as_empty_in_bounded_memory(project: Path, tmp_path: Path) -> None:
    path = gzipped(tmp_path / "blank.qrels.gz", repeated(b"\n", 200 * MB))
    before = fingerprint(project)
    found = measured(project, "import", "qrels", path)
    assert found["code"] == 2, found
    assert "the file is empty" in str(found["stderr"]) and "Traceback" not in str(found["stderr"])
    assert int(str(found["peak_mb"])) < MEMORY_BOUND_MB, found
    assert fingerprint(project) == before


@pytest.mark.process
@pytest.mark.parametrize("name", ["blank.qrels.gz", "blank[precise].qrels.gz"])
def test_rows_among_200_mb_of_blank_lines_import_in_bounded_memory(project: Path, tmp_path: Path, name: str) -> None:
    """Both readers: DuckDB's, and the precise one (a path with `[` never goes to DuckDB)."""
    row = b"1001 0 p1001-01 2\n"
    path = gzipped(tmp_path / name, [row, *repeated(b" \t\r\n", 200 * MB), row])
    found = measured(project, "import", "qrels", path, "--name", "padded")
    assert found["code"] == 0, found
    assert int(str(found["peak_mb"])) < MEMORY_BOUND_MB, found


@pytest.mark.process
def test_a_run_among_blank_lines_is_named_after_its_tag_without_reading_line_by_line(
    project: Path, tmp_path: Path
) -> None:
    path = gzipped(tmp_path / "run[x].gz", [*repeated(b"\n", 200 * MB), b"1001 Q0 p1001-01 1 2.5 padded-run\n"])
    found = measured(project, "import", "run", path)
    assert found["code"] == 0, found
    assert int(str(found["peak_mb"])) < MEMORY_BOUND_MB, found


@pytest.mark.process
def test_a_200_mb_grade_in_a_gzip_is_refused_by_its_line_quickly_and_briefly(project: Path, tmp_path: Path) -> None:
    path = gzipped(tmp_path / "digits.qrels.gz", [b"1001 0 p1001-01 ", *repeated(b"1", 200 * MB), b"\n"])
    before = fingerprint(project)
    found = measured(project, "import", "qrels", path)
    stderr = str(found["stderr"])
    assert found["code"] == 2, found
    assert f"{path}:1: the line is longer than 1 MiB" in stderr, stderr[:2000]
    assert len(stderr) < 2000 and "Traceback" not in stderr
    assert int(str(found["peak_mb"])) < MEMORY_BOUND_MB, found
    assert fingerprint(project) == before


# -- lines longer than the format allows ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["q.qrels.gz", "q[precise].qrels.gz"])
def test_a_huge_last_line_is_refused_not_dropped(studio: Studio, project: Path, tmp_path: Path, name: str) -> None:
    """DuckDB's parallel reader drops a last line longer than its 32 MB buffer without a word."""
    good = b"1001 0 p1001-01 2\n1001 0 p1001-02 0\n"
    path = gzipped(tmp_path / name, [good, b"1001 0 p1001-03 ", *repeated(b"1", 40 * MB), b"\n"])
    refused(project, lambda: studio("import", "qrels", path), f"{path}:3: the line is longer than 1 MiB")


def test_a_huge_last_line_of_a_run_is_refused_not_dropped(studio: Studio, project: Path, tmp_path: Path) -> None:
    good = b"1001 Q0 p1001-01 1 2 t\n"
    path = gzipped(tmp_path / "r.gz", [good, b"1001 Q0 p1001-03 2 1 t ", *repeated(b"x", 40 * MB)])
    refused(project, lambda: studio("import", "run", path), f"{path}:2: the line is longer than 1 MiB")


def test_a_huge_next_to_last_line_of_a_plain_run_is_refused_not_dropped(
    studio: Studio, project: Path, tmp_path: Path
) -> None:
    """Files under the parallel reader's buffer are read in parallel: this one is over it, and its
    longest line, which would not fit the buffer, ends in a line break (the last line is empty)."""
    path = tmp_path / "r.txt"
    with path.open("wb") as out:
        out.write(b"1001 Q0 p1001-01 1 2 t\n1001 Q0 p1001-03 2 1 t ")
        for block in repeated(b"x", 40 * MB):
            out.write(block)
        out.write(b"\n")
    refused(project, lambda: studio("import", "run", path), f"{path}:2: the line is longer than 1 MiB")


def test_a_trec_line_just_within_the_cap_is_read(studio: Studio, write: Write) -> None:
    """Columns after the sixth are junk to trec_eval: a long tail within the cap is read."""
    line = "1001 Q0 p1001-01 1 2 t "
    path = write("r.txt", line + "x" * (TREC_LINE_BYTES - len(line)) + "\n")
    result = studio("import", "run", path)
    assert result.exit_code == 0, result.output


def test_a_json_line_longer_than_the_cap_is_refused_with_its_number(
    studio: Studio, project: Path, tmp_path: Path
) -> None:
    first = b'{"docid": "d1", "text": "short"}\n'
    path = gzipped(tmp_path / "docs.jsonl.gz", [first, b'{"docid": "d2", "text": "', *repeated(b"a", 65 * MB), b'"}\n'])
    refused(project, lambda: studio("import", "docs", path), f"{path}:2: the line is longer than 64 MiB")


def test_line_numbers_count_the_blank_lines_skipped(studio: Studio, project: Path, tmp_path: Path) -> None:
    blanks = 3 * MB  # several chunks of the reader
    path = gzipped(tmp_path / "q.gz", [b"1001 0 p1001-01 2\n", *repeated(b"\r\n", 2 * blanks), b"1001 0 p1001-02 x\n"])
    refused(project, lambda: studio("import", "qrels", path), f"{path}:{blanks + 2}: grade 'x' is not a number")


# -- caps on ids and numbers, and short quotes ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["q.txt", "q[precise].txt"])
def test_an_id_longer_than_the_cap_is_refused_briefly(studio: Studio, write: Write, project: Path, name: str) -> None:
    docid = "d" * 200_000
    path = write(name, f"1001 0 p1001-01 1\n1001 0 {docid} 1\n")
    refused(
        project,
        lambda: studio("import", "qrels", path),
        f"{path}:2: docid 'dddddddddddddddddddddddddddddddddddddddd'… (200000 characters) is 200000 bytes long"
        f" (at most {MAX_ID_BYTES})",
    )


@pytest.mark.parametrize("name", ["q.txt", "q[precise].txt"])
def test_the_id_cap_counts_bytes_of_utf8(studio: Studio, write: Write, project: Path, name: str) -> None:
    fits, too_long = "é" * (MAX_ID_BYTES // 2), "é" * (MAX_ID_BYTES // 2 + 1)
    result = studio("import", "qrels", write(name, f"1001 0 {fits} 1\n"), "--name", "fits")
    assert result.exit_code == 0, result.output
    path = write(name, f"1001 0 {too_long} 1\n")
    refused(project, lambda: studio("import", "qrels", path, "--name", "long"), f"is {MAX_ID_BYTES + 2} bytes long")


@pytest.mark.parametrize("name", ["r.txt", "r[precise].txt"])
def test_a_run_id_longer_than_the_cap_is_refused(studio: Studio, write: Write, project: Path, name: str) -> None:
    path = write(name, f"1001 Q0 p1001-01 1 2 t\n{'q' * (MAX_ID_BYTES + 1)} Q0 p1001-01 1 2 t\n")
    refused(project, lambda: studio("import", "run", path), f"{path}:2: qid 'qqqq", f"(at most {MAX_ID_BYTES})")


def test_a_long_grade_within_the_line_cap_is_quoted_short(studio: Studio, write: Write, project: Path) -> None:
    path = write("q.txt", "1001 0 p1001-01 " + "1" * 500_000 + "\n")
    refused(
        project,
        lambda: studio("import", "qrels", path),
        f"{path}:1: grade '1111111111111111111111111111111111111111'… (500000 characters) is 500000 characters"
        f" long, too long for a number (at most {MAX_NUMBER_LENGTH})",
    )


@pytest.mark.parametrize("name", ["r.txt", "r[precise].txt"])
@pytest.mark.parametrize("column", ["rank", "score"])
def test_a_number_longer_than_the_cap_is_refused_by_both_readers(
    studio: Studio, write: Write, project: Path, name: str, column: str
) -> None:
    digits = "1" * (MAX_NUMBER_LENGTH + 1)
    rank, score = (digits, "2") if column == "rank" else ("1", digits)
    path = write(name, f"1001 Q0 p1001-01 {rank} {score} t\n")
    refused(project, lambda: studio("import", "run", path), f"{path}:1: {column} '11111", "too long for a number")


def test_the_longest_integer_grade_the_studio_writes_reads_back(studio: Studio, write: Write) -> None:
    """The grade of largest magnitude a project holds (−2**63), as an export writes it, is no number
    the length cap refuses."""
    result = studio("import", "qrels", write("q.txt", f"1001 0 p1001-01 {-int(GRADE_LIMIT)}\n"), "--name", "edge")
    assert result.exit_code == 0, result.output
    exported = studio("export", "qrels", "edge", "--out", "-")
    assert exported.exit_code == 0 and f"{-int(GRADE_LIMIT)}" in exported.stdout


def test_a_long_name_is_quoted_short(studio: Studio, write: Write, project: Path) -> None:
    path = write("q.txt", "1001 0 p1001-01 1\n")
    refused(
        project,
        lambda: studio("import", "qrels", path, "--name", "n" * 100_000),
        "label set name 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn'… (100000 characters) is 100000 characters long",
    )


# -- the streamed reader reads what the whole-text reader read --------------------------------------------------

LINE_PARTS = st.sampled_from(["", " ", "\t", "\r", "\n", "\r\n", "a", "b c", "é", "\u3000", "#"])


@settings(max_examples=examples(300), deadline=None)
@given(parts=st.lists(LINE_PARTS, max_size=40), chunk=st.integers(min_value=1, max_value=9))
def test_streamed_lines_are_the_lines_of_the_whole_text(
    tmp_path_factory: pytest.TempPathFactory, parts: list[str], chunk: int
) -> None:
    text = "".join(parts)
    path = tmp_path_factory.mktemp("lines") / "f.txt.gz"
    path.write_bytes(gzip.compress(text.encode()))
    original = text_input.CHUNK_BYTES
    text_input.CHUNK_BYTES = chunk
    try:
        expected = list(numbered_lines(text))
        if expected:
            assert list(numbered_lines(read_lines(path))) == expected
        else:
            with pytest.raises(ValueError, match="the file is empty"):
                list(numbered_lines(read_lines(path)))
    finally:
        text_input.CHUNK_BYTES = original


def test_a_line_is_refused_once_its_bytes_pass_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"ok\n" + b"x" * 10 + b"\n" + b"y" * 11 + b"\n")
    lines = read_lines(path, max_line_bytes=10)
    with pytest.raises(ValueError, match=r"f.txt:3: the line is longer than 10 bytes"):
        list(lines)
