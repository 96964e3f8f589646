"""What a careful tool refuses, and how: numbers trec_eval would not read, non-finite values, ids
and names that cannot be written back or shown, silently merged or empty input. Every refusal
exits 2 with the file, line and reason on stderr, no traceback, and leaves every table of the
project exactly as it was (a fingerprint of all of them, before and after)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from gates.conftest import fingerprint
from helpers import Studio
from typer.testing import Result

Write = Callable[[str, str | bytes], Path]


def refused(result: Result, *fragments: str) -> None:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr


def jsonl(*records: str) -> str:
    return "".join(record + "\n" for record in records)


GOOD_JUDGMENT = '{"qid": "1001", "docid": "p1001-01", "judgment": 1}'
DEEP = "[" * 100_000 + "]" * 100_000

# command, file name, content, line of the refusal, what stderr says
FILES = {
    "judgment NaN": (
        "judgments",
        "j.jsonl",
        jsonl(GOOD_JUDGMENT, '{"qid": "1001", "docid": "p1001-02", "judgment": NaN}'),
        2,
        "judgment nan is not a finite number",
    ),
    "judgment Infinity": (
        "judgments",
        "j.jsonl",
        jsonl('{"qid": "1001", "docid": "p1001-02", "judgment": Infinity}'),
        1,
        "judgment inf is not a finite number",
    ),
    "confidence -Infinity": (
        "judgments",
        "j.jsonl",
        jsonl('{"qid": "1001", "docid": "p1001-02", "judgment": 1, "confidence": -Infinity}'),
        1,
        "confidence -inf is not a finite number",
    ),
    "label_probs not numbers": (
        "judgments",
        "j.jsonl",
        jsonl(GOOD_JUDGMENT, '{"qid": "1001", "docid": "p1001-02", "judgment": 1, "label_probs": {"0": "high"}}'),
        2,
        "label_probs['0'] 'high' is not a finite number",
    ),
    "label_probs NaN": (
        "judgments",
        "j.jsonl",
        jsonl('{"qid": "1001", "docid": "p1001-02", "judgment": 1, "label_probs": {"0": NaN, "1": 1}}'),
        1,
        "label_probs['0'] nan is not a finite number",
    ),
    "label_probs a list": (
        "judgments",
        "j.jsonl",
        jsonl('{"qid": "1001", "docid": "p1001-02", "judgment": 1, "label_probs": [0.5, 0.5]}'),
        1,
        "label_probs must be an object",
    ),
    "judgment docid a float": (
        "judgments",
        "j.jsonl",
        jsonl('{"qid": "1001", "docid": 7.0, "judgment": 1}'),
        1,
        "field 'docid' must be a string or an integer (an id), not 7.0",
    ),
    "grade with an underscore": ("qrels", "q.txt", "1001 0 p1001-01 1\n1001 0 p1001-02 1_0\n", 2, "grade '1_0'"),
    "grade in Arabic-Indic digits": ("qrels", "q.txt", "1001 0 p1001-01 \u0663\n", 1, "grade '\u0663' is not a number"),
    "grade in full-width digits": ("qrels", "q.txt", "1001 0 p1001-01 \uff12\n", 1, "grade '\uff12' is not a number"),
    "grade NaN": ("qrels", "q.txt", "1001 0 p1001-01 nan\n", 1, "grade 'nan' is not a finite number"),
    "grade too large": ("qrels", "q.txt", "1001 0 p1001-01 1e999\n", 1, "grade '1e999' is too large"),
    "no-break space between qrels columns": (
        "qrels",
        "q.txt",
        "1001 0 p1001-01 1\n1001 0 p1001-02\u00a02\n",
        2,
        "expected 4 columns (qid iter docid grade), found 3",
    ),
    "docid with an escape code in qrels": (
        "qrels",
        "q.txt",
        "1001 0 p1001-01 1\n1001 0 \x1b[31mred 2\n",
        2,
        "docid '\\x1b[31mred' holds a control character (U+001B)",
    ),
    "score with an underscore": ("run", "r.txt", "1001 Q0 p1001-01 1 1_5 t\n", 1, "score '1_5' is not a number"),
    "score Infinity": ("run", "r.txt", "1001 Q0 p1001-01 1 Infinity t\n", 1, "score 'Infinity' is not a finite"),
    "rank in full-width digits": (
        "run",
        "r.txt",
        "1001 Q0 p1001-01 \uff11 2 t\n",
        1,
        "rank '\uff11' is not an integer",
    ),
    "run mixing tags": (
        "run",
        "r.txt",
        "1001 Q0 p1001-01 1 3 one\n# a comment\n1001 Q0 p1001-02 2 2 one\n1001 Q0 p1001-03 3 1 two\n",
        4,
        "tag 'two' differs from the tag 'one' of line 1",
    ),
    "run tag with an escape code": (
        "run",
        "r.txt",
        "# header\n1001 Q0 p1001-01 1 3 \x1b[2Jx\n",
        2,
        "run name '\\x1b[2Jx' (the tag column) holds a control character (U+001B)",
    ),
    "run tag longer than a name may be": (
        "run",
        "r.txt",
        f"1001 Q0 p1001-01 1 3 {'t' * 242}\n",
        1,
        "is 242 characters long (at most 100)",
    ),
    "topic id a JSON float": ("topics", "t.jsonl", jsonl('{"qid": 7.0, "text": "x"}'), 1, "not 7.0"),
    "topic id JSON NaN": (
        "topics",
        "t.jsonl",
        jsonl('{"qid": "1", "text": "x"}', '{"qid": NaN, "text": "y"}'),
        2,
        "not nan",
    ),
    "topic id with a blank": ("topics", "t.jsonl", jsonl('{"qid": "q 9", "text": "x"}'), 1, "qid 'q 9' holds a blank"),
    "empty topic text (TSV)": ("topics", "t.tsv", "q9\tnine\nq8\t \t \n", 2, "the topic's text is empty"),
    "empty topic text (JSONL)": ("topics", "t.jsonl", jsonl('{"qid": "q9", "text": "  "}'), 1, "text is empty"),
    "deeply nested JSON": (
        "docs",
        "d.jsonl",
        jsonl('{"docid": "d1", "text": "x"}', '{"docid": "d2", "text": "y", "meta": ' + DEEP + "}"),
        2,
        "JSON nested deeper than 64 levels",
    ),
    "a JSON integer too long to read": (
        "docs",
        "d.jsonl",
        jsonl('{"docid": ' + "9" * 5000 + ', "text": "y"}'),
        1,
        "invalid JSON",
    ),
    "docid with a control character": (
        "docs",
        "d.tsv",
        "d1\tone\nd\x7f2\ttwo\n",
        2,
        "holds a control character (U+007F)",
    ),
    "empty nugget text": (
        "bank",
        "b.jsonl",
        jsonl('{"qid": "1001", "nuggets": ["a", "   "]}'),
        1,
        "an item's text is empty",
    ),
    "empty question text": (
        "bank",
        "b.jsonl",
        jsonl('{"query_id": "1001", "items": [{"question_id": "q1", "question_text": ""}]}'),
        1,
        "an item's text is empty",
    ),
    "bank qid a JSON float": ("bank", "b.jsonl", jsonl('{"qid": 1001.0, "nuggets": ["a"]}'), 1, "not 1001.0"),
    "bank qid with a blank (TSV)": ("bank", "b.tsv", "10\u00a001_1\tA nugget\n", 1, "holds a blank (U+00A0)"),
    "answer qid JSON NaN": ("responses", "a.jsonl", jsonl('{"qid": NaN, "system": "s", "text": "x"}'), 1, "not nan"),
    "system name with a line break": (
        "responses",
        "a.jsonl",
        jsonl('{"qid": "1001", "system": "a\\nb", "text": "x"}'),
        1,
        "system name 'a\\nb' holds a line break",
    ),
}


@pytest.mark.parametrize(("command", "name", "content", "line", "reason"), FILES.values(), ids=FILES)
def test_a_refused_file_names_its_line_and_changes_nothing(
    studio: Studio, write: Write, project: Path, command: str, name: str, content: str, line: int, reason: str
) -> None:
    path = write(name, content)
    before = fingerprint(project)
    result = studio("import", command, path)
    refused(result, f"{path}:{line}: ", reason)
    assert fingerprint(project) == before


def test_a_graded_file_with_a_blank_in_a_qid_is_refused(studio: Studio, write: Write, project: Path) -> None:
    path = write("g.jsonl", '["1001 x", []]\n')
    before = fingerprint(project)
    refused(studio("import", "graded", path, "--name", "g", "--bank", "questions"), f"{path}:1: ", "holds a blank")
    assert fingerprint(project) == before


def test_an_audit_gold_file_with_a_nan_grade_is_refused(studio: Studio, write: Write, project: Path) -> None:
    assert studio("audit", "plan", "--qrels", "umbrela-smol", "--name", "gold", "--budget", "2").exit_code == 0
    pairs = json.loads(studio("audit", "pairs", "gold", "--format", "json").stdout)
    path = write(
        "gold.qrels", f"{pairs[0]['qid']} 0 {pairs[0]['docid']} 1\n{pairs[1]['qid']} 0 {pairs[1]['docid']} NaN\n"
    )
    before = fingerprint(project)
    refused(studio("audit", "import", "gold", path), f"{path}:2: ", "grade 'NaN' is not a finite number")
    assert fingerprint(project) == before


# -- the fingerprint itself ------------------------------------------------------------------------


def test_the_fingerprint_sees_an_import_and_not_a_listing(studio: Studio, write: Write, project: Path) -> None:
    before = fingerprint(project)
    assert studio("list", "qrels").exit_code == 0
    assert fingerprint(project) == before
    assert studio("import", "qrels", write("q.txt", "1001 0 p1001-01 1\n"), "--name", "one").exit_code == 0
    assert fingerprint(project) != before


# -- a run of mixed tags named as one ------------------------------------------------------------


def test_a_run_mixing_tags_is_one_run_under_the_name_given(studio: Studio, write: Write) -> None:
    path = write("r.txt", "1001 Q0 p1001-01 1 3 one\n1001 Q0 p1001-02 2 2 two\n1002 Q0 p1002-01 1 1 three\n")
    result = studio("import", "run", path, "--name", "mixed")
    assert result.exit_code == 0, result.output
    runs = json.loads(studio("list", "runs", "--format", "json").stdout)
    assert {run["name"]: run["rows"] for run in runs}["mixed"] == 3
    assert not {"one", "two", "three"} & {run["name"] for run in runs}


# -- a path that is not a regular file ---------------------------------------------------------------


@pytest.mark.parametrize("command", ["qrels", "run", "topics", "bank", "probs", "leaderboard"])
def test_a_path_that_is_no_regular_file_is_named_for_what_it_is(
    studio: Studio, project: Path, tmp_path: Path, command: str
) -> None:
    """A directory, a device or a pipe (`<(zcat …)`, which can be read only once while import reads
    a file twice) is refused for what it is, never as a missing file."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    before = fingerprint(project)
    for path, reason in (
        (tmp_path, "a directory, not a file"),
        (Path(os.devnull), "not a regular file (a pipe, socket or device)"),
        (pipe, "not a regular file (a pipe, socket or device)"),
        (tmp_path / "missing.txt", "no such file"),
    ):
        refused(studio("import", command, path), f"{path}: {reason}")
    assert fingerprint(project) == before
