"""Paths are paths: a file whose name holds `[`, `*`, `?` or `{` is imported as exactly that file
by every importer, never read as a pattern (DuckDB expands patterns in the paths it reads; the
shell, not the studio, expands them on a command line). Beside each such file lie the files the
pattern would match, with other content: what the project holds afterwards shows which was read.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import Studio

from studio import Project

Write = Callable[[str, str | bytes], Path]

# A name with a pattern character, and files of other content each of these patterns matches.
PATTERNS = ["in[1]", "in*", "in?", "in{1,a}", "in[1]*?{a}"]
DECOYS = ["in1", "ina", "inb"]


def written(
    write: Write, pattern: str, suffix: str, real: str | bytes, decoy: str, pack: Callable[[str], str | bytes] = str
) -> Path:
    """The file named `pattern` holding `real`, beside decoys holding `decoy` (each its own, with
    `{n}` replaced by its number), packed by `pack`; its path."""
    for n, name in enumerate(DECOYS):
        write(name + suffix, pack(decoy.replace("{n}", str(n))))
    return write(pattern + suffix, real)


def listing(studio: Studio, what: str) -> list[dict[str, Any]]:
    result = studio("list", what, "--format", "json")
    assert result.exit_code == 0, result.output
    rows: list[dict[str, Any]] = json.loads(result.stdout)
    return rows


def imported(result: Any) -> None:
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("pattern", PATTERNS)
def test_qrels(studio: Studio, write: Write, pattern: str) -> None:
    real = "".join(f"1001 0 p1001-0{i} {i % 3}\n" for i in range(1, 8))
    path = written(write, pattern, ".qrels", real, "1001 0 decoy{n} 1\n")
    imported(studio("import", "qrels", path))
    (row,) = [row for row in listing(studio, "qrels") if row["name"] == pattern]
    assert row["pairs"] == 7


@pytest.mark.parametrize("pattern", PATTERNS)
def test_qrels_gzipped(studio: Studio, write: Write, pattern: str) -> None:
    real = gzip.compress("".join(f"1001 0 p1001-0{i} 1\n" for i in range(1, 5)).encode())
    path = written(write, pattern, ".qrels.gz", real, "1001 0 decoy{n} 1\n", lambda text: gzip.compress(text.encode()))
    imported(studio("import", "qrels", path, "--name", "gate"))
    (row,) = [row for row in listing(studio, "qrels") if row["name"] == "gate"]
    assert row["pairs"] == 4


@pytest.mark.parametrize("pattern", PATTERNS)
def test_runs(studio: Studio, write: Write, pattern: str) -> None:
    real = "".join(f"1001 Q0 p1001-0{i} {i} {10 - i} gate\n" for i in range(1, 6))
    path = written(write, pattern, ".run", real, "1001 Q0 decoy{n} 1 1 gate\n")
    imported(studio("import", "run", path))
    (row,) = [row for row in listing(studio, "runs") if row["name"] == "gate"]
    assert row["rows"] == 5


@pytest.mark.parametrize("pattern", PATTERNS)
def test_runs_among_other_runs(studio: Studio, write: Write, pattern: str) -> None:
    # One command, many files: the plain names take the fast path together, the pattern alone.
    path = written(write, pattern, ".run", "1001 Q0 p1001-01 1 2 gate\n", "1001 Q0 decoy{n} 1 1 decoy\n")
    plain = write("plain.run", "1001 Q0 p1001-01 1 2 plain\n1001 Q0 p1001-02 2 1 plain\n")
    imported(studio("import", "run", plain, path))
    rows = {row["name"]: row["rows"] for row in listing(studio, "runs")}
    assert (rows["plain"], rows["gate"]) == (2, 1)
    assert "decoy" not in rows


@pytest.mark.parametrize("pattern", PATTERNS)
def test_topics(studio: Studio, write: Write, pattern: str) -> None:
    path = written(write, pattern, ".tsv", "q-real\tthe real topic\n", "q-decoy{n}\tnot this one\n")
    imported(studio("import", "topics", path))
    qids = {row["qid"] for row in listing(studio, "topics")}
    assert "q-real" in qids and not any(qid.startswith("q-decoy") for qid in qids)


@pytest.mark.parametrize("pattern", PATTERNS)
def test_documents(studio: Studio, write: Write, pattern: str) -> None:
    path = written(write, pattern, ".tsv", "d-real\tthe real document\n", "d-decoy{n}\tnot this one\n")
    imported(studio("import", "docs", path))
    docids = {row["docid"] for row in listing(studio, "docs")}
    assert "d-real" in docids and not any(docid.startswith("d-decoy") for docid in docids)


@pytest.mark.parametrize("pattern", PATTERNS)
def test_banks(studio: Studio, write: Write, pattern: str) -> None:
    real = "1001_1\tA real nugget\tvital\n1001_2\tAnother\tokay\n1002_1\tA third\n"
    path = written(write, pattern, ".tsv", real, "1001_1\tDecoy {n}\n")
    imported(studio("import", "bank", path, "--name", "gate"))
    (row,) = [row for row in listing(studio, "banks") if row["name"] == "gate"]
    assert row["items"] == 3


@pytest.mark.parametrize("pattern", PATTERNS)
def test_judgments(studio: Studio, write: Write, pattern: str) -> None:
    lines = [{"qid": "1001", "docid": f"p1001-0{i}", "judgment": i % 4, "result_status": 1} for i in range(1, 7)]
    real = "".join(json.dumps(line) + "\n" for line in lines)
    decoy = json.dumps({"qid": "1001", "docid": "decoy{n}", "judgment": 1, "result_status": 1}) + "\n"
    path = written(write, pattern, ".jsonl", real, decoy)
    imported(studio("import", "judgments", path, "--name", "gate"))
    (row,) = [row for row in listing(studio, "qrels") if row["name"] == "gate"]
    assert row["pairs"] == 6


@pytest.mark.parametrize("pattern", PATTERNS)
def test_responses(studio: Studio, write: Write, project: Path, pattern: str) -> None:
    real = json.dumps({"qid": "1001", "system": "sys-real", "text": "An answer."}) + "\n"
    decoy = json.dumps({"qid": "1001", "system": "sys-decoy{n}", "text": "Not this."}) + "\n"
    imported(studio("import", "responses", written(write, pattern, ".jsonl", real, decoy)))
    with Project.open(project) as opened:
        systems = {s for (s,) in opened.db.cursor().execute("SELECT DISTINCT system FROM responses").fetchall()}
    assert systems >= {"sys-real"} and not any(system.startswith("sys-decoy") for system in systems)


@pytest.mark.parametrize("pattern", PATTERNS)
def test_graded_files(studio: Studio, write: Write, pattern: str) -> None:
    def record(docid: str, nuggets: list[str]) -> str:
        assigned = [{"text": text, "importance": "vital", "assignment": "support"} for text in nuggets]
        return json.dumps({"qid": "1001", "docid": docid, "nuggets": assigned}) + "\n"

    real = record("p1001-01", ["first", "second"]) + record("p1001-02", ["first", "second"])
    path = written(write, pattern, ".jsonl", real, record("p1001-03", ["decoy {n}"]))
    imported(studio("import", "graded", path, "--name", "gate", "--bank", "gate-bank"))
    (row,) = [row for row in listing(studio, "banks") if row["name"] == "gate-bank"]
    assert row["items"] == 2


@pytest.mark.parametrize("pattern", PATTERNS)
def test_audit_gold_files(studio: Studio, write: Write, pattern: str) -> None:
    plan = studio("audit", "plan", "--qrels", "umbrela-smol", "--name", "gate", "--budget", "3", "--design", "pairs")
    assert plan.exit_code == 0, plan.output
    pairs = json.loads(studio("audit", "pairs", "gate", "--format", "json").stdout)
    real = "".join(f"{pair['qid']} 0 {pair['docid']} 2\n" for pair in pairs)
    # A decoy read in its place would be refused: its pair is outside the sample.
    path = written(write, pattern, ".qrels", real, "1001 0 not-sampled{n} 1\n")
    result = studio("audit", "import", "gate", path, "--format", "json")
    imported(result)
    assert json.loads(result.stdout)["labels_written"] == 3
