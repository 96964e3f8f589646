"""Names and ids are checked at every door they come in by: imports (the name given, or the one
taken from the file), judges, ensembles, calibrations, derived sets, audits, banks, audited
edits. A bad one exits 2 saying which name and what is wrong, and changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from gates.conftest import fingerprint
from helpers import Studio
from typer.testing import Result

from studio.domain.errors import quoted

Write = Callable[[str, str | bytes], Path]

# A name, and what the refusal says of it.
BAD_NAMES = {
    "empty": ("", "is empty"),
    "blank": ("   ", "is blank"),
    "blanks around": (" human2", "has blanks around it"),
    "multi-line": ("a\nb", "holds a line break (U+000A)"),
    "escape code": ("\x1b[31mred\x1b[0m", "holds a control character (U+001B)"),
    "tab": ("a\tb", "holds a control character (U+0009)"),
    "no-break space": ("a\u00a0b", "holds a blank (U+00A0)"),
    "invisible": ("a\u200bb", "holds an invisible formatting character (U+200B)"),
    "too long": ("n" * 242, "is 242 characters long (at most 100)"),
}


def refused_unchanged(project: Path, run: Callable[[], Result], *fragments: str) -> None:
    before = fingerprint(project)
    result = run()
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr
    assert fingerprint(project) == before


def doors(write: Write) -> dict[str, Callable[[str], tuple[object, ...]]]:
    """Every command that takes a new name, as the arguments that give it `name`."""
    qrels = write("q.txt", "1001 0 p1001-01 1\n")
    run = write("r.txt", "1001 Q0 p1001-01 1 2 t\n")
    bank = write("b.tsv", "1001_1\tA nugget\n")
    judgments = write("j.jsonl", '{"qid": "1001", "docid": "p1001-01", "judgment": 1}\n')
    answers = write("a.jsonl", '{"qid": "1001", "system": "s", "text": "An answer."}\n')
    graded = write(
        "g.jsonl", '{"qid": "1001", "docid": "p1001-01", "nuggets": [{"text": "n", "assignment": "support"}]}\n'
    )
    return {
        "import qrels --name": lambda name: ("import", "qrels", qrels, "--name", name),
        "import run --name": lambda name: ("import", "run", run, "--name", name),
        "import bank --name": lambda name: ("import", "bank", bank, "--name", name),
        "import judgments --name": lambda name: ("import", "judgments", judgments, "--name", name),
        "import responses --system": lambda name: ("import", "responses", answers, "--system", name),
        "import graded --name": lambda name: ("import", "graded", graded, "--name", name, "--bank", "new-bank"),
        "import graded --bank": lambda name: ("import", "graded", graded, "--name", "graded", "--bank", name),
        "judge --name": lambda name: ("judge", "--backend", "simulated", "--name", name),
        "ensemble --name": lambda name: ("ensemble", "--qrels", "human", "--qrels", "umbrela-smol", "--name", name),
        "calibrate --name": lambda name: ("calibrate", "--qrels", "umbrela-smol", "--gold", "human", "--name", name),
        "derive --name": lambda name: ("derive", "--from", "umbrela-smol", "--bank", "questions", "--name", name),
        "audit plan --name": lambda name: ("audit", "plan", "--qrels", "umbrela-smol", "--budget", "2", "--name", name),
        "bank generate": lambda name: ("bank", "generate", name),
        "bank nuggetize": lambda name: ("bank", "nuggetize", name),
    }


WHAT = {
    "import run --name": "run name",
    "import bank --name": "bank name",
    "import responses --system": "system name",
    "import graded --bank": "bank name",
    "audit plan --name": "audit name",
    "bank generate": "bank name",
    "bank nuggetize": "bank name",
}
DOORS = [
    "import qrels --name",
    "import run --name",
    "import bank --name",
    "import judgments --name",
    "import responses --system",
    "import graded --name",
    "import graded --bank",
    "judge --name",
    "ensemble --name",
    "calibrate --name",
    "derive --name",
    "audit plan --name",
    "bank generate",
    "bank nuggetize",
]


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("bad", ["multi-line", "escape code", "too long"])
def test_every_door_refuses_a_bad_name(studio: Studio, write: Write, project: Path, door: str, bad: str) -> None:
    name, problem = BAD_NAMES[bad]
    args = doors(write)[door](name)
    refused_unchanged(project, lambda: studio(*args), f"{WHAT.get(door, 'label set name')} {quoted(name)} {problem}")


@pytest.mark.parametrize("bad", BAD_NAMES)
def test_each_rule_of_names_is_enforced(studio: Studio, write: Write, project: Path, bad: str) -> None:
    name, problem = BAD_NAMES[bad]
    args = doors(write)["import qrels --name"](name)
    refused_unchanged(project, lambda: studio(*args), f"label set name {quoted(name)} {problem}")


def test_a_name_of_the_longest_length_and_any_script_is_fine(studio: Studio, write: Write) -> None:
    for name in ("n" * 100, "Prüfung 2 — ε", "模型-评估"):
        result = studio("import", "qrels", write("q.txt", "1001 0 p1001-01 1\n"), "--name", name)
        assert result.exit_code == 0, result.output


def test_a_name_taken_from_a_file_name_is_checked_and_says_to_give_one(
    studio: Studio, write: Write, project: Path
) -> None:
    path = write("human\x1b[1m.qrels", "1001 0 p1001-01 1\n")
    refused_unchanged(
        project,
        lambda: studio("import", "qrels", path),
        "label set name 'human\\x1b[1m' (the file's name) holds a control character (U+001B); give --name",
    )
    result = studio("import", "qrels", path, "--name", "human-bold")
    assert result.exit_code == 0, result.output


# -- ids of audited edits and bank items ------------------------------------------------------------


@pytest.mark.parametrize(
    ("qid", "docid", "said"),
    [
        ("1001", "a b", "docid 'a b' holds a blank (U+0020)"),
        ("1001", "", "docid '' is empty"),
        ("10\n01", "p1001-01", "qid '10\\n01' holds a line break (U+000A)"),
        ("1001", "p\x1b[0m", "docid 'p\\x1b[0m' holds a control character (U+001B)"),
    ],
)
def test_label_refuses_an_id_the_qrels_format_cannot_hold(
    studio: Studio, project: Path, qid: str, docid: str, said: str
) -> None:
    refused_unchanged(project, lambda: studio("label", "--qrels", "human", qid, docid, "2"), said)


@pytest.mark.parametrize("grade", ["1_0", "\u0662", "\uff12", "nan", "-inf", "1e999", " 2", "0x2"])
def test_label_reads_a_grade_as_trec_eval_does(studio: Studio, project: Path, grade: str) -> None:
    refused_unchanged(
        project, lambda: studio("label", "--qrels", "human", "--", "1001", "p1001-01", grade), repr(grade)
    )


@pytest.mark.parametrize("grade", ["2", "+1", "-1", "0.5", ".5", "3.", "1e0", "2.5E-1", "none"])
def test_label_takes_every_spelling_of_an_ascii_decimal_grade(studio: Studio, grade: str) -> None:
    result = studio("label", "--qrels", "human", "--", "1001", "p1001-01", grade)
    assert result.exit_code == 0, result.output


def test_bank_add_refuses_a_qid_with_a_blank(studio: Studio, project: Path) -> None:
    refused_unchanged(
        project, lambda: studio("bank", "add", "nuggets", "10 01", "A nugget"), "qid '10 01' holds a blank"
    )
