"""Shared helpers of the judge tests: sample projects, the sample data read independently of
the studio (the expectations), and running a judge to its summary and progress."""

from __future__ import annotations

import atexit
import gzip
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import duckdb
from helpers import judge_all

from studio import Project
from studio.domain.judging import JudgeConfig, JudgeProgress, JudgeSummary
from studio.judges.backend import Backend
from studio.store import Database

REPO = Path(__file__).resolve().parents[1]
SAMPLE_DATA = REPO / "sample_data"
# llama.cpp's threads for the bundled model in the tests: two, as the real server's tests start it
# (tests/judges/test_llama_server.py compares the two to the last digits).
LLAMA_THREADS = min(2, os.cpu_count() or 1)
SUMMARY_KEYS = {
    "label_set",
    "method",
    "backend",
    "model",
    "pairs",
    "calls",
    "cache_hits",
    "failures",
    "seconds",
    "prompt_tokens",
    "completion_tokens",
}

_template: Path | None = None


def sample_copy(folder: Path, name: str = "project.duckdb") -> Path:
    """A fresh copy of the sample project in `folder` (built once per test process)."""
    global _template
    if _template is None:
        scratch = Path(tempfile.mkdtemp(prefix="judge-template-"))
        atexit.register(shutil.rmtree, scratch, True)
        Project.sample(scratch / "sample.duckdb").close()
        _template = scratch / "sample.duckdb"
    target = folder / name
    shutil.copyfile(_template, target)
    return target


# -- the sample data, read straight from its files ----------------------------------------------


def human_qrels() -> dict[tuple[str, str], float]:
    """(qid, docid) -> grade of sample_data/qrels/human.txt."""
    grades = {}
    for line in (SAMPLE_DATA / "qrels" / "human.txt").read_text().splitlines():
        if line.strip():
            qid, _, docid, grade = line.split()
            grades[(qid, docid)] = float(grade)
    return grades


def run_files() -> dict[str, list[tuple[str, str, float]]]:
    """run name -> [(qid, docid, score)] of sample_data/runs/*.txt."""
    runs: dict[str, list[tuple[str, str, float]]] = {}
    for path in sorted((SAMPLE_DATA / "runs").glob("*.txt")):
        rows = runs.setdefault(path.stem, [])
        for line in path.read_text().splitlines():
            if line.strip():
                qid, _, docid, _, score, _ = line.split()
                rows.append((qid, docid, float(score)))
    return runs


def top_ranked(depth: int) -> set[tuple[str, str]]:
    """Pairs some run ranks in its top `depth`, in trec_eval's order: score descending, ties by
    docno in descending byte order."""
    found: set[tuple[str, str]] = set()
    for rows in run_files().values():
        by_topic: dict[str, list[tuple[str, float]]] = {}
        for qid, docid, score in rows:
            by_topic.setdefault(qid, []).append((docid, score))
        for qid, ranked in by_topic.items():
            ranked.sort(key=lambda ds: (ds[1], ds[0].encode()), reverse=True)
            found.update((qid, docid) for docid, _ in ranked[:depth])
    return found


def response_pairs() -> set[tuple[str, str]]:
    """(qid, 'answer/<system>') of every generated answer in sample_data/responses."""
    pairs = set()
    for path in sorted((SAMPLE_DATA / "responses").glob("*.jsonl")):
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    record = json.loads(line)
                    qid = record.get("qid", record.get("topic_id"))
                    system = record.get("system", record.get("run_id"))
                    pairs.add((str(qid), f"answer/{system}"))
    return pairs


# -- running judges ---------------------------------------------------------------------------------


def judge(
    db: Database, *, backend_object: Backend | None = None, **options: Any
) -> tuple[JudgeSummary, list[JudgeProgress]]:
    """Run a judge (simulated unless told otherwise, or `backend_object`) to its end:
    (summary, progress events)."""
    options.setdefault("backend", "simulated")
    options.setdefault("method", "umbrela")
    options.setdefault("name", "judged")
    progress: list[JudgeProgress] = []
    summary = judge_all(db, JudgeConfig(**options), backend_object, progress=progress)
    return summary, progress


def labels_of(path_or_con: Any, label_set: str) -> dict[tuple[str, str], float]:
    """Current labels of a label set, read with SQL from the project file."""
    con = _connection(path_or_con)
    rows = con.execute(
        "SELECT l.qid, l.docid, l.grade FROM labels l JOIN label_sets s USING (label_set_id) WHERE s.name = ?",
        [label_set],
    ).fetchall()
    return {(q, d): g for q, d, g in rows}


def _connection(path_or_con: Any) -> Any:
    if isinstance(path_or_con, str | Path):
        return duckdb.connect(str(path_or_con), read_only=True)
    if hasattr(path_or_con, "db"):  # a Project
        path_or_con = path_or_con.db
    return path_or_con.cursor() if hasattr(path_or_con, "cursor") else path_or_con
