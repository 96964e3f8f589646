"""Names that look the same are one name: a name is stored composed (NFC), however it was typed,
and a new name that reads like an existing one of its kind whatever its case, width or accent
encoding (`café` in NFC and NFD, `ｈｕｍａｎ` and `human`) is refused, naming the existing one,
at every door a name comes in by. Each refusal exits 2 and changes nothing."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest
from gates.conftest import fingerprint
from gates.test_gates_names import DOORS, WHAT, doors
from helpers import Studio

from studio import Project
from studio.domain.names import check_new_name, composed, look_alike

Write = Callable[[str, str | bytes], Path]
CAFE_NFC = unicodedata.normalize("NFC", "café")
CAFE_NFD = unicodedata.normalize("NFD", "café")
QRELS = "1001 0 p1001-01 1\n"


def names(project: Path, table: str, column: str = "name") -> list[str]:
    with Project.open(project) as opened:
        rows = opened.db.cursor().execute(f"SELECT DISTINCT {column} FROM {table} ORDER BY 1").fetchall()
    return [str(name) for (name,) in rows]


def refused(project: Path, run: Callable[[], object], *fragments: str) -> None:
    before = fingerprint(project)
    result = run()
    assert getattr(result, "exit_code", None) == 2, getattr(result, "output", result)
    stderr = str(getattr(result, "stderr", ""))
    assert "Traceback" not in stderr
    for fragment in fragments:
        assert fragment in stderr, stderr
    assert fingerprint(project) == before


def test_the_two_spellings_of_cafe_differ_as_strings() -> None:
    assert CAFE_NFC != CAFE_NFD and composed(CAFE_NFD) == CAFE_NFC


@pytest.mark.parametrize("typed", [CAFE_NFD, CAFE_NFC])
def test_a_name_is_stored_composed(studio: Studio, write: Write, project: Path, typed: str) -> None:
    result = studio("import", "qrels", write("q.txt", QRELS), "--name", typed)
    assert result.exit_code == 0, result.output
    assert CAFE_NFC in names(project, "label_sets") and CAFE_NFD not in names(project, "label_sets")


def test_a_name_typed_decomposed_is_the_composed_one_already_there(studio: Studio, write: Write, project: Path) -> None:
    assert studio("import", "qrels", write("q.txt", QRELS), "--name", CAFE_NFC).exit_code == 0
    path = write("q2.txt", "1001 0 p1001-02 2\n")
    refused(project, lambda: studio("import", "qrels", path, "--name", CAFE_NFD), "already exists (use --replace)")
    result = studio("import", "qrels", path, "--name", CAFE_NFD, "--replace")
    assert result.exit_code == 0, result.output
    assert names(project, "label_sets").count(CAFE_NFC) == 1


@pytest.mark.parametrize("look_alike_name", ["ｈｕｍａｎ", "Human", "HUMAN", "ｈｕｍａｎ".upper()])
def test_a_label_set_that_reads_like_an_existing_one_is_refused(
    studio: Studio, write: Write, project: Path, look_alike_name: str
) -> None:
    path = write("q.txt", QRELS)
    refused(
        project,
        lambda: studio("import", "qrels", path, "--name", look_alike_name),
        f"label set name {look_alike_name!r} looks the same as the existing label set 'human'",
        "use 'human' itself, or a name that reads differently",
    )


def test_a_file_name_that_reads_like_an_existing_label_set_is_refused(
    studio: Studio, write: Write, project: Path
) -> None:
    path = write("Human.qrels", QRELS)
    refused(project, lambda: studio("import", "qrels", path), "looks the same as the existing label set 'human'")


def test_run_tags_that_read_alike_in_one_import_are_refused(studio: Studio, write: Write, project: Path) -> None:
    first = write("a.txt", "1001 Q0 p1001-01 1 2 Run-A\n")
    second = write("b.txt", "1001 Q0 p1001-01 1 2 run-a\n")
    refused(
        project,
        lambda: studio("import", "run", first, second),
        "run name 'run-a' looks the same as the existing run 'Run-A'",
    )


def test_a_decomposed_tag_is_stored_composed(studio: Studio, write: Write, project: Path) -> None:
    result = studio("import", "run", write("r.txt", f"1001 Q0 p1001-01 1 2 {CAFE_NFD}\n"))
    assert result.exit_code == 0, result.output
    assert CAFE_NFC in names(project, "runs") and CAFE_NFD not in names(project, "runs")


def test_a_system_that_reads_like_a_loaded_one_is_refused(studio: Studio, write: Write, project: Path) -> None:
    answers = write("a.jsonl", '{"qid": "1001", "system": "Sys", "text": "An answer."}\n')
    assert studio("import", "responses", answers).exit_code == 0
    refused(
        project,
        lambda: studio("import", "responses", answers, "--system", "ＳＹＳ"),
        "looks the same as the existing system 'Sys'",
    )


# A name of each kind in the sample project, and a look-alike of it.
EXISTING = {"label set": "human", "run": "dense-good", "bank": "questions", "system": "Sys"}
LOOK_ALIKE = {"label set": "Ｈuman", "run": "DENSE-good", "bank": "Ｑuestions", "system": "ｓys"}


@pytest.mark.parametrize("door", DOORS)
def test_every_door_refuses_a_look_alike_name(studio: Studio, write: Write, project: Path, door: str) -> None:
    what = WHAT.get(door, "label set name").removesuffix(" name")
    if what == "audit":
        what = "label set"  # an audit's gold labels become a label set of its name
    if what == "system":
        answers = write("sys.jsonl", '{"qid": "1001", "system": "Sys", "text": "An answer."}\n')
        assert studio("import", "responses", answers).exit_code == 0
    args = doors(write)[door](LOOK_ALIKE[what])
    refused(project, lambda: studio(*args), f"looks the same as the existing {what} {EXISTING[what]!r}")


@pytest.mark.parametrize(
    ("name", "existing", "found"),
    [
        (CAFE_NFD, [CAFE_NFC], CAFE_NFC),
        ("ｈｕｍａｎ", ["human"], "human"),
        ("ﬁle", ["file"], "file"),  # a ligature
        ("Straße", ["STRASSE"], "STRASSE"),  # case folding, not lower-casing
        ("human2", ["human"], None),
        ("模型-评估", ["模型-评价"], None),
    ],
)
def test_what_reads_alike(name: str, existing: list[str], found: str | None) -> None:
    assert look_alike(name, existing) == found


def test_a_new_name_is_returned_composed() -> None:
    assert check_new_name(CAFE_NFD, "label set", ["human"]) == CAFE_NFC
