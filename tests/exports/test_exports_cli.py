"""`studio export …` end to end: export, re-import with `studio import`, compare the project state."""

from __future__ import annotations

import gzip
import json
import math
import shutil
import tempfile
from pathlib import Path

import pytest
from helpers import Studio, cli, copy_project
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from typer.testing import Result

from studio import Project
from studio.domain.models import BankItem, QrelsRow
from studio.domain.numbers import GRADE_LIMIT
from studio.services.exports import labels as exports
from studio.store import banks as bank_store
from studio.store import labels as label_store


@pytest.fixture(scope="module")
def template(sample_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(sample_template, tmp_path_factory.mktemp("sample"), "sample.duckdb")


@pytest.fixture
def db(template: Path, tmp_path: Path) -> Path:
    path = tmp_path / "db" / "project.duckdb"  # outside the folder the exports go to
    path.parent.mkdir()
    shutil.copyfile(template, path)
    return path


@pytest.fixture
def studio(db: Path) -> Studio:
    """`studio --db DB ARGS…`, asserting success unless `ok=False`."""

    def invoke(*args: object, ok: bool = True) -> Result:
        result = cli(db, *args)
        if ok:
            assert result.exit_code == 0, result.output
        return result

    return invoke


def bank_items(db: Path, name: str) -> list[BankItem]:
    with Project.open(db) as project:
        bank = bank_store.bank_id(project.db.cursor(), name)
        assert bank is not None
        return bank_store.current_items(project.db.cursor(), bank)


def labels(db: Path, name: str) -> list[QrelsRow]:
    with Project.open(db) as project:
        set_id = label_store.label_set_id(project.db.cursor(), name)
        assert set_id is not None
        return label_store.current_labels(project.db.cursor(), set_id)


def listed(studio: Studio, what: str, name: str) -> dict[str, object]:
    rows = json.loads(studio("list", what, "--format", "json").stdout)
    (row,) = [{k: v for k, v in r.items() if k not in ("name", "source")} for r in rows if r["name"] == name]
    return row


# -- banks ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bank", "file", "fmt", "kind"),
    [
        ("questions", "q.jsonl", None, None),
        ("questions", "q.jsonl.gz", None, None),
        ("questions", "q.tsv", None, "question"),
        ("nuggets", "n.jsonl", None, None),
        ("nuggets", "n.jsonl", "nuggetizer", None),
        ("nuggets", "n.tsv.gz", None, None),
        ("nuggets", "n.txt", "tsv", None),
    ],
)
def test_bank_export_reimports_identically(
    studio: Studio, db: Path, tmp_path: Path, bank: str, file: str, fmt: str | None, kind: str | None
) -> None:
    out = tmp_path / file
    studio("export", "bank", bank, "--out", out, *(["--as", fmt] if fmt else []))
    if file.endswith(".gz"):
        gzip.decompress(out.read_bytes())  # valid gzip, whatever the reader does
    studio("import", "bank", out, "--name", "copy", *(["--kind", kind] if kind else []))
    assert bank_items(db, "copy") == bank_items(db, bank)
    assert listed(studio, "banks", "copy") == listed(studio, "banks", bank)


def test_bank_export_says_what_the_format_drops(studio: Studio, tmp_path: Path) -> None:
    result = studio("export", "bank", "questions", "--out", tmp_path / "q.jsonl", "--as", "nuggetizer")
    assert "warning: questions are written as nuggets" in result.stderr
    assert "exported bank questions as nuggetizer" in result.stderr and result.stdout == ""


def test_bank_gzip_is_reproducible(studio: Studio, tmp_path: Path) -> None:
    studio("export", "bank", "questions", "--out", tmp_path / "a.jsonl.gz")
    studio("export", "bank", "questions", "--out", tmp_path / "b.jsonl.gz")
    assert (tmp_path / "a.jsonl.gz").read_bytes() == (tmp_path / "b.jsonl.gz").read_bytes()


# -- qrels ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("file", ["human.qrels", "human.qrels.gz"])
def test_qrels_export_reimports_identically(studio: Studio, db: Path, tmp_path: Path, file: str) -> None:
    out = tmp_path / file
    studio("export", "qrels", "human", "--out", out)
    studio("import", "qrels", out, "--name", "copy")
    assert labels(db, "copy") == labels(db, "human")
    assert listed(studio, "qrels", "copy") == listed(studio, "qrels", "human")
    text = gzip.decompress(out.read_bytes()).decode() if file.endswith(".gz") else out.read_text()
    assert text.splitlines()[0] == "1001 0 p1001-01 2"  # integer grades stay integers


# Grades at the ends of the range a grade may have (±2**63, trec_eval's) among them.
TRICKY = [0.1, 1 / 3, 2.5, -0.75, 1e-300, 5e-324, GRADE_LIMIT, 1e18, 3.0, 0.0, 2 / 3 * 1e-5, -GRADE_LIMIT]


def test_float_grades_survive_exactly(studio: Studio, db: Path, tmp_path: Path) -> None:
    source = tmp_path / "floats.qrels"
    source.write_text("".join(f"t1 0 d{i} {g!r}\n" for i, g in enumerate(TRICKY)))
    studio("import", "qrels", source, "--name", "nuggety", "--kind", "derived")
    out = tmp_path / "out.qrels"
    studio("export", "qrels", "nuggety", "--out", out)
    assert {line.split()[2]: float(line.split()[3]) for line in out.read_text().splitlines()} == {
        f"d{i}": g for i, g in enumerate(TRICKY)
    }
    assert "t1 0 d8 3\n" in out.read_text()
    studio("import", "qrels", out, "--name", "again", "--kind", "derived")
    assert labels(db, "again") == labels(db, "nuggety")


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.floats(min_value=-GRADE_LIMIT, max_value=GRADE_LIMIT), min_size=1, max_size=20))
def test_any_grade_round_trips(template: Path, grades: list[float]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        source, out = Path(folder) / "in.qrels", Path(folder) / "out.qrels"
        source.write_text("".join(f"t 0 d{i} {g!r}\n" for i, g in enumerate(grades)))
        with Project.open(":memory:") as project:
            project.import_qrels(source, name="a", kind="derived")
            exports.export_qrels(project.db, "a", out)
            project.import_qrels(out, name="b", kind="derived")
            con = project.db.cursor()
            first, second = (label_store.current_labels(con, label_store.label_set_id(con, n) or -1) for n in "ab")
        assert first == second
        assert sorted(math.copysign(0, g) + g for g in grades) == sorted(r.grade for r in second)


# -- leaderboards --------------------------------------------------------------------------------


@pytest.mark.parametrize("measures", [[], ["-m", "nDCG@10", "-m", "P(rel=2)@10", "-m", "AP"]])
def test_leaderboard_export_equals_eval_json(studio: Studio, tmp_path: Path, measures: list[str]) -> None:
    printed = studio("eval", "--qrels", "human", *measures, "--format", "json").stdout
    studio("export", "leaderboard", "--qrels", "human", *measures, "--out", tmp_path / "lb.json")
    assert (tmp_path / "lb.json").read_text(encoding="utf-8") == printed
    assert studio("export", "leaderboard", "--qrels", "human", *measures, "--out", "-").stdout == printed


@pytest.mark.parametrize(
    ("file", "fmt", "sep"), [("lb.tsv", None, "\t"), ("lb.csv", None, ","), ("lb.out", "csv", ",")]
)
def test_leaderboard_tables_keep_full_precision(
    studio: Studio, tmp_path: Path, file: str, fmt: str | None, sep: str
) -> None:
    rows = json.loads(studio("eval", "--qrels", "human", "--format", "json").stdout)
    studio("export", "leaderboard", "--qrels", "human", "--out", tmp_path / file, *(["--as", fmt] if fmt else []))
    header, *lines = [line.split(sep) for line in (tmp_path / file).read_text().splitlines()]
    assert header == ["run", "measure", "value", "topics"]
    assert [[r, m, float(v), int(t)] for r, m, v, t in lines] == [
        [row["run"], row["measure"], row["value"], row["topics"]] for row in rows
    ]


# -- stdout, errors, atomic writes ----------------------------------------------------------------


def test_out_dash_writes_to_stdout(studio: Studio, tmp_path: Path) -> None:
    studio("export", "qrels", "human", "--out", tmp_path / "h.qrels")
    result = studio("export", "qrels", "human", "--out", "-")
    assert result.stdout == (tmp_path / "h.qrels").read_text()
    assert "280 labels" in result.stderr
    bank = studio("export", "bank", "nuggets", "--out", "-", "--as", "tsv").stdout
    assert bank.splitlines()[0] == "1001_1\tWater boils at 100 C at sea level\tvital"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["bank", "nope"], "no bank named 'nope'"),
        (["qrels", "nope"], "no label set named 'nope'"),
        (["leaderboard", "--qrels", "nope"], "no label set named 'nope'"),
        (["leaderboard", "--qrels", "human", "-m", "nDCG@x"], "nDCG@x"),
    ],
)
def test_unknown_names_exit_2_and_write_nothing(studio: Studio, tmp_path: Path, args: list[str], message: str) -> None:
    result = studio("export", *args, "--out", tmp_path / "x.out", ok=False)
    assert result.exit_code == 2 and message in result.stderr and result.stdout == ""
    assert [p.name for p in tmp_path.iterdir()] == ["db"]


def test_unknown_format_is_bad_usage(studio: Studio, tmp_path: Path) -> None:
    result = studio("export", "bank", "nuggets", "--out", tmp_path / "x", "--as", "yaml", ok=False)
    assert result.exit_code == 2 and not (tmp_path / "x").exists()


def test_a_missing_folder_is_reported(studio: Studio, tmp_path: Path) -> None:
    result = studio("export", "qrels", "human", "--out", tmp_path / "no" / "h.qrels", ok=False)
    assert result.exit_code == 2 and "cannot write" in result.stderr


def test_a_failed_export_leaves_the_old_file_alone(studio: Studio, tmp_path: Path) -> None:
    bank = tmp_path / "tabbed.jsonl"
    bank.write_text(json.dumps({"qid": "1001", "nuggets": [{"text": "a\tb"}]}) + "\n")
    studio("import", "bank", bank, "--name", "tabbed")
    out = tmp_path / "tabbed.tsv"
    out.write_text("old\n")
    result = studio("export", "bank", "tabbed", "--out", out, ok=False)
    assert result.exit_code == 2 and "TSV cannot carry" in result.stderr
    assert out.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db", "tabbed.jsonl", "tabbed.tsv"]


def test_an_export_replaces_the_old_file_keeping_its_mode(studio: Studio, tmp_path: Path) -> None:
    out = tmp_path / "h.qrels"
    out.write_text("old\n")
    out.chmod(0o640)
    studio("export", "qrels", "human", "--out", out)
    assert out.read_text().startswith("1001 0 p1001-01 2\n") and out.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db", "h.qrels"]
