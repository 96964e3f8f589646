"""Rankings stored at import in trec_eval's order: what is stored is trec_eval's order, a project
file of the older schema migrates to the same rankings, runs added or replaced later keep every
leaderboard right, and opening a project reads no docid until something asks for one."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import duckdb
import pytest

from studio.metrics.rankings import trec_order
from studio.services.project import Project
from studio.store import rankings as ranking_store
from studio.store.migrations import MIGRATIONS

MEASURES = ("nDCG@10", "AP", "P@10", "RR", "R@100", "Compat(p=0.9)")
# Ties in score, near-ties that are ties only in single precision, and docids that trec_eval
# orders by bytes descending ("999" before "1000", "d1" before "D1").
TRICKY_SCORES = [1.0, 1.0, 0.5, 0.5000000001, 0.5000000002, 2.0, -1.0, 1e39, 0.0]
DOCIDS = ["999", "1000", "d1", "D1", "doc-7", "ñ", "0", "00", "x", "y", "z"]

RunRows = dict[str, list[tuple[str, str, float]]]  # run name -> (qid, docid, score)


def random_runs(seed: int, runs: int = 4, topics: int = 3) -> RunRows:
    rng = random.Random(seed)
    found: RunRows = {}
    for r in range(runs):
        rows = []
        for t in range(topics):
            docids = rng.sample(DOCIDS, rng.randint(1, len(DOCIDS)))
            rows += [(str(100 + t), docid, rng.choice(TRICKY_SCORES)) for docid in docids]
        rng.shuffle(rows)  # file order is not the ranking order
        found[f"run-{r}"] = rows
    return found


def write_runs(folder: Path, runs: RunRows) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, rows in runs.items():
        path = folder / f"{name}.txt"
        path.write_text("".join(f"{q} Q0 {d} {n} {s!r} {name}\n" for n, (q, d, s) in enumerate(rows, 1)))
        paths.append(path)
    return paths


def write_qrels(path: Path, runs: RunRows, seed: int) -> Path:
    rng = random.Random(seed)
    pairs = sorted({(q, d) for rows in runs.values() for q, d, _ in rows})
    path.write_text("".join(f"{q} 0 {d} {rng.choice([0, 0, 1, 2, 3])}\n" for q, d in pairs if rng.random() < 0.7))
    return path


def expected_order(rows: list[tuple[str, str, float]]) -> dict[str, list[str]]:
    by_topic: dict[str, list[tuple[str, float]]] = {}
    for qid, docid, score in rows:
        by_topic.setdefault(qid, []).append((docid, score))
    return {qid: trec_order(entries) for qid, entries in by_topic.items()}


def stored_order(project: Project) -> dict[str, dict[str, list[str]]]:
    """run -> qid -> docids in the stored order, read back through the SQL tables."""
    rows = (
        project.db.cursor()
        .execute(
            """
        SELECT n.name, t.qid, list(d.docid ORDER BY u.position)
        FROM (SELECT run_id, topic, unnest(docs) AS doc, generate_subscripts(docs, 1) AS position
              FROM run_rankings) AS u
        JOIN runs AS n USING (run_id) JOIN ranking_topics AS t ON t.topic = u.topic
        JOIN ranking_docs AS d ON d.topic = u.topic AND d.doc = u.doc
        GROUP BY n.name, t.qid
        """
        )
        .fetchall()
    )
    found: dict[str, dict[str, list[str]]] = {}
    for run, qid, docids in rows:
        found.setdefault(run, {})[qid] = docids
    return found


def boards(project: Project) -> dict[str, dict[str, float]]:
    return {m: project.leaderboard("human", m) for m in MEASURES}


@pytest.mark.parametrize("seed", range(4))
def test_the_stored_order_is_trec_evals(tmp_path: Path, seed: int) -> None:
    runs = random_runs(seed)
    with Project.open(tmp_path / "p.duckdb") as project:
        project.import_runs(write_runs(tmp_path / "runs", runs))
        assert stored_order(project) == {name: expected_order(rows) for name, rows in runs.items()}
        # The run_rows view gives back every row as written.
        shown = (
            project.db.cursor()
            .execute("SELECT n.name, r.qid, r.docid, r.rank, r.score FROM run_rows r JOIN runs n USING (run_id)")
            .fetchall()
        )
        written = {(name, q, d, n, s) for name, rows in runs.items() for n, (q, d, s) in enumerate(rows, 1)}
        assert set(shown) == written and len(shown) == len(written)


def old_project(path: Path, runs: RunRows) -> None:
    """A project file of schema 9 (ranked rows in a run_rows table), written as that studio did."""
    con = duckdb.connect(str(path))
    con.execute(
        "CREATE TABLE schema_version (version INTEGER PRIMARY KEY,"
        " applied_at TIMESTAMP NOT NULL DEFAULT current_timestamp)"
    )
    for version, statements in MIGRATIONS:
        if version > 9:
            break
        con.execute(statements)
        con.execute("INSERT INTO schema_version (version) VALUES (?)", [version])
    con.execute("INSERT INTO batches (batch_id, command, source) VALUES (nextval('batch_ids'), 'import run', 'x')")
    for name, rows in runs.items():
        run_id = con.execute(
            "INSERT INTO runs VALUES (nextval('run_ids'), ?, 'x', 1) RETURNING run_id", [name]
        ).fetchone()
        assert run_id is not None
        con.executemany(
            "INSERT INTO run_rows VALUES (?, ?, ?, ?, ?)",
            [(run_id[0], q, d, n, s) for n, (q, d, s) in enumerate(rows, 1)],
        )
    con.close()


def test_an_older_project_file_migrates_to_the_same_rankings(tmp_path: Path) -> None:
    runs = random_runs(7)
    qrels = write_qrels(tmp_path / "qrels.txt", runs, 7)
    old_project(tmp_path / "old.duckdb", runs)
    with Project.open(tmp_path / "old.duckdb") as migrated, Project.open(tmp_path / "new.duckdb") as fresh:
        assert migrated.db.schema_version() == MIGRATIONS[-1][0]
        fresh.import_runs(write_runs(tmp_path / "runs", runs))
        for project in (migrated, fresh):
            project.import_qrels(qrels, name="human")
        assert stored_order(migrated) == stored_order(fresh) == {name: expected_order(r) for name, r in runs.items()}
        assert boards(migrated) == boards(fresh)
        assert migrated.runs() == [dict(row, source="x") for row in fresh.runs()]


def test_runs_added_and_replaced_later_keep_every_leaderboard_right(tmp_path: Path) -> None:
    first, second = random_runs(1, runs=3), random_runs(2, runs=3)
    renamed = {f"late-{name}": rows for name, rows in second.items()}
    final = {**first, **renamed}
    final["run-0"] = second["run-1"]  # run-0 replaced by other rows
    qrels = write_qrels(tmp_path / "qrels.txt", final, 3)
    with Project.open(tmp_path / "grown.duckdb") as grown:
        grown.import_qrels(qrels, name="human")
        grown.import_runs(write_runs(tmp_path / "first", first))
        before = boards(grown)
        grown.import_runs(write_runs(tmp_path / "second", renamed))
        grown.import_runs(write_runs(tmp_path / "replaced", {"run-0": final["run-0"]}), replace=True)
        assert boards(grown) != before
        after = boards(grown)
    with Project.open(tmp_path / "grown.duckdb") as reopened, Project.open(tmp_path / "fresh.duckdb") as fresh:
        fresh.import_runs(write_runs(tmp_path / "final", final))
        fresh.import_qrels(qrels, name="human")
        assert boards(reopened) == after == boards(fresh)
        assert stored_order(reopened) == {name: expected_order(rows) for name, rows in final.items()}


def fresh_board(folder: Path, runs: RunRows, edited: Project) -> dict[str, float]:
    """P@10 of a new project holding the edited label set's current labels."""
    exported = folder / "edited.qrels"
    rows = (
        edited.db.cursor()
        .execute("SELECT qid, docid, grade FROM labels JOIN label_sets USING (label_set_id) WHERE name = 'human'")
        .fetchall()
    )
    exported.write_text("".join(f"{q} 0 {d} {g:g}\n" for q, d, g in rows))
    with Project.open(folder / "check.duckdb") as check:
        check.import_runs(write_runs(folder / "check-runs", runs))
        check.import_qrels(exported, name="human")
        return check.leaderboard("human", "P@10")


def test_opening_a_project_reads_no_docid_until_one_is_needed(tmp_path: Path, monkeypatch: Any) -> None:
    runs = random_runs(5)
    qrels = write_qrels(tmp_path / "qrels.txt", runs, 5)
    with Project.open(tmp_path / "p.duckdb") as project:
        project.import_runs(write_runs(tmp_path / "runs", runs))
        project.import_qrels(qrels, name="human")
    read: list[int] = []
    original = ranking_store.topic_docids

    def counted(con: Any, topic_key: int) -> list[str]:
        read.append(topic_key)
        return original(con, topic_key)

    monkeypatch.setattr(ranking_store, "topic_docids", counted)
    with Project.open(tmp_path / "p.duckdb") as project:
        boards(project)
        labelled = next(iter(project.engine.evaluator("human").labels.items()))
        qid, docid = labelled[0], next(iter(labelled[1].judged))
        project.set_label("human", qid, docid, 3)  # a document labelled before: its number is at hand
        assert read == []
        judged = project.engine.evaluator("human").labels[qid].judged
        ranked = {d for rows in runs.values() for q, d, _ in rows if q == qid}
        unlabelled = sorted(ranked - set(judged))
        assert unlabelled, "the fixture leaves some ranked document of every topic unlabelled"
        project.set_label("human", qid, unlabelled[0], 2)
        project.set_label("human", qid, unlabelled[-1], 1)
        assert len(read) == 1  # two new labels of one topic: its docids, read once
        assert project.leaderboard("human", "P@10") == fresh_board(tmp_path, runs, project)
