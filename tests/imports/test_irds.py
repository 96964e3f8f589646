"""`studio import irds`: topics, qrels and the documents the project needs from ir_datasets' cache.

Every dataset here is registered over local files (or over a download whose cache file is
absent); no test reaches the network, and the ones about a missing cache prove the import did
not try to.
"""

from __future__ import annotations

import itertools
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from extras import skip_reason
from helpers import cli

from studio.services.imports.irds import default_name
from studio.services.project import Project

irds: Any = pytest.importorskip("ir_datasets", reason=skip_reason("irds"))

REPO = Path(__file__).resolve().parents[2]
SEGMENT = "msmarco_v2.1_doc_00_0#3_1234"
DOCS = f"d1\tfirst passage\nd2\tsecond passage\n{SEGMENT}\ta segment\nd4\tranked by a run only\nd5\tnobody's\n"
QUERIES = "q1\twhat is one\nq2\tand two\n"
QRELS = f"q1 0 d1 2\nq1 0 {SEGMENT} 1\nq2 0 d2 0\n"
_names = itertools.count()

Register = Callable[..., str]


@pytest.fixture(autouse=True)
def irds_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "irds-home"
    monkeypatch.setenv("IR_DATASETS_HOME", str(home))
    return home


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every attempt to open a connection is recorded and refused."""
    attempts: list[object] = []

    def refuse(*args: object, **kwargs: object) -> None:
        attempts.append(args)
        raise OSError("network use in a test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    return attempts


@pytest.fixture
def register(tmp_path: Path) -> Iterator[Register]:
    """Register a dataset under a fresh id (removed afterwards): each part given as text is a TSV
    (TREC for qrels) file written here, a part given as a handler is that handler."""
    registered: list[str] = []
    readers = {
        "docs": lambda path: irds.formats.TsvDocs(irds.util.LocalDownload(path)),
        "queries": lambda path: irds.formats.TsvQueries(irds.util.LocalDownload(path)),
        "qrels": lambda path: irds.formats.TrecQrels(irds.util.LocalDownload(path), {}),
    }

    def add(docs: object = DOCS, queries: object = QUERIES, qrels: object = QRELS) -> str:
        dataset_id = f"studio-test/local-{next(_names)}/judged"
        folder = tmp_path / dataset_id.replace("/", "_")
        folder.mkdir()
        handlers = []
        for part, given in {"docs": docs, "queries": queries, "qrels": qrels}.items():
            if isinstance(given, str):
                (folder / part).write_text(given, encoding="utf-8")
                handlers.append(readers[part](str(folder / part)))
            elif given is not None:
                handlers.append(given)
        irds.registry.register(dataset_id, irds.Dataset(*handlers))
        registered.append(dataset_id)
        return dataset_id

    yield add
    for dataset_id in registered:
        irds.registry._registered.pop(dataset_id, None)


def state(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    with Project.open(db) as project:
        con = project.db.cursor()
        return {
            table: con.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall()
            for table in ("topics", "documents", "label_sets", "label_events")
        }


def docids(db: Path) -> set[str]:
    return {row[0] for row in state(db)["documents"]}


def test_the_default_name_keeps_the_id_readable_without_slashes() -> None:
    assert default_name("msmarco-passage/trec-dl-2019/judged") == "msmarco-passage_trec-dl-2019_judged"
    assert default_name("a b/c:d") == "a_b_c_d"
    assert len(default_name("x" * 300)) == 100


def test_topics_qrels_and_the_judged_documents_are_loaded(tmp_path: Path, register: Register) -> None:
    dataset_id = register()
    db = tmp_path / "p.duckdb"
    result = cli(db, "import", "irds", dataset_id, "--format", "json")
    assert result.exit_code == 0, result.output
    with Project.open(db) as project:
        con = project.db.cursor()
        assert con.execute("SELECT qid, text FROM topics ORDER BY qid").fetchall() == [
            ("q1", "what is one"),
            ("q2", "and two"),
        ]
        name = default_name(dataset_id)
        labels = con.execute(
            "SELECT qid, docid, grade FROM labels JOIN label_sets USING (label_set_id) WHERE name = ? ORDER BY ALL",
            [name],
        ).fetchall()
    assert labels == [("q1", "d1", 2.0), ("q1", SEGMENT, 1.0), ("q2", "d2", 0.0)]
    # The documents the qrels judge, the segment id with its '#' among them; not the others.
    assert docids(db) == {"d1", "d2", SEGMENT}


def test_documents_ranked_by_a_run_already_loaded_come_too(tmp_path: Path, register: Register) -> None:
    db = tmp_path / "p.duckdb"
    run = tmp_path / "run.txt"
    run.write_text(f"q1 Q0 d4 1 9.5 bm25\nq1 Q0 {SEGMENT} 2 9.0 bm25\n", encoding="utf-8")
    assert cli(db, "import", "run", run).exit_code == 0
    result = cli(db, "import", "irds", register())
    assert result.exit_code == 0, result.output
    assert docids(db) == {"d1", "d2", SEGMENT, "d4"}


def test_all_docs_loads_the_whole_collection(tmp_path: Path, register: Register) -> None:
    db = tmp_path / "p.duckdb"
    assert cli(db, "import", "irds", register(), "--all-docs").exit_code == 0
    assert docids(db) == {"d1", "d2", SEGMENT, "d4", "d5"}


def test_a_named_label_set_is_refused_when_taken_and_replaced_on_request(tmp_path: Path, register: Register) -> None:
    db = tmp_path / "p.duckdb"
    dataset_id = register()
    assert cli(db, "import", "irds", dataset_id, "--name", "dl-human").exit_code == 0
    before = state(db)
    again = cli(db, "import", "irds", dataset_id, "--name", "dl-human")
    assert again.exit_code == 2
    assert "already exists" in again.stderr
    assert state(db) == before
    assert cli(db, "import", "irds", dataset_id, "--name", "dl-human", "--replace").exit_code == 0
    assert [row[1] for row in state(db)["label_sets"]] == ["dl-human"]


def test_a_bad_record_refuses_the_whole_import(tmp_path: Path, register: Register) -> None:
    db = tmp_path / "p.duckdb"
    first = register()
    assert cli(db, "import", "irds", first).exit_code == 0
    before = state(db)
    broken = register(queries="q1\tchanged text\nq3\t \n", docs=DOCS.replace("first passage", "changed"))
    result = cli(db, "import", "irds", broken)
    assert result.exit_code == 2
    assert f"ir_datasets:{broken} queries:2: topic 'q3' has an empty text" in result.stderr
    assert state(db) == before


def test_a_dataset_without_qrels_loads_its_topics_and_says_so(tmp_path: Path, register: Register) -> None:
    db = tmp_path / "p.duckdb"
    result = cli(db, "import", "irds", register(qrels=None))
    assert result.exit_code == 0, result.output
    assert "no qrels" in result.stderr
    assert state(db)["label_sets"] == []
    assert len(state(db)["topics"]) == 2


def test_an_unknown_id_exits_2(tmp_path: Path) -> None:
    result = cli(tmp_path / "p.duckdb", "import", "irds", "studio-test/no-such-dataset")
    assert result.exit_code == 2
    assert "knows no dataset 'studio-test/no-such-dataset'" in result.stderr
    empty = cli(tmp_path / "p.duckdb", "import", "irds", " ")
    assert empty.exit_code == 2
    assert "the ir_datasets id is empty" in empty.stderr


def test_without_ir_datasets_the_command_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # what `import ir_datasets` meets when it is absent
    result = cli(tmp_path / "p.duckdb", "import", "irds", "msmarco-passage/trec-dl-2019/judged")
    assert result.exit_code == 2
    assert "[irds] extra" in result.stderr


def test_data_missing_from_the_cache_exits_2_naming_it_without_any_download(
    tmp_path: Path, register: Register, irds_home: Path, no_network: list[object]
) -> None:
    db = tmp_path / "p.duckdb"
    assert cli(db, "import", "irds", register()).exit_code == 0
    before = state(db)
    cache = irds_home / "remote" / "queries.tsv"
    url = "https://example.invalid/queries.tsv"
    remote = irds.formats.TsvQueries(irds.util.Download([irds.util.RequestsDownload(url)], cache_path=str(cache)))
    dataset_id = register(queries=remote)
    result = cli(db, "import", "irds", dataset_id)
    assert result.exit_code == 2
    assert f"Missing: {cache} (from {url})" in result.stderr
    assert f"ir_datasets export {dataset_id} queries" in result.stderr
    assert no_network == []
    assert not cache.exists()
    assert state(db) == before


def test_a_cached_download_is_read_without_the_network(
    tmp_path: Path, register: Register, irds_home: Path, no_network: list[object]
) -> None:
    cache = irds_home / "remote" / "queries.tsv"
    cache.parent.mkdir(parents=True)
    cache.write_text("q9\tfrom the cache\n", encoding="utf-8")
    download = irds.util.Download([irds.util.RequestsDownload("https://example.invalid/q.tsv")], cache_path=str(cache))
    db = tmp_path / "p.duckdb"
    result = cli(db, "import", "irds", register(queries=irds.formats.TsvQueries(download)))
    assert result.exit_code == 0, result.output
    assert state(db)["topics"] == [("q9", "from the cache")]
    assert no_network == []


@pytest.mark.process
def test_a_published_id_with_an_empty_cache_exits_2_offline(tmp_path: Path) -> None:
    """ir_datasets' own TREC DL 2019 definition, in a fresh process whose sockets refuse to connect."""
    script = (
        "import socket, sys\n"
        "def refuse(*a, **k): raise SystemExit('network use')\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = refuse\n"
        "from studio.cli.app import run\n"
        "sys.argv = ['studio', '--db', sys.argv[1], 'import', 'irds', 'msmarco-passage/trec-dl-2019/judged']\n"
        "run()\n"
    )
    home = tmp_path / "home"
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "p.duckdb")],
        capture_output=True,
        text=True,
        env={"IR_DATASETS_HOME": str(home), "PYTHONPATH": str(REPO), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    assert "network use" not in done.stderr
    assert "trec.nist.gov/data/deep/2019qrels-pass.txt" in done.stderr
    assert str(home / "msmarco-passage" / "trec-dl-2019" / "qrels") in done.stderr
    assert not (home / "msmarco-passage" / "trec-dl-2019" / "qrels").exists()
