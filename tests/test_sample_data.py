"""The bundled sample data keeps its promises, read with plain Python (no studio code).

The promises: enough topics of each kind, enough passages with human grades, a keyword-stuffed
trap and near-duplicates in every topic, runs of clearly different quality, answers (one system
lying) and test banks for every topic, and files that the build script reproduces exactly.
"""

from __future__ import annotations

import difflib
import gzip
import json
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).resolve().parents[1] / "sample_data"


def source_topics() -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(DATA.glob("source/topic_*.json"))]


TOPICS = source_topics()
QIDS = {t["qid"] for t in TOPICS}


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def human_qrels() -> dict[tuple[str, str], str]:
    qrels = {}
    for line in (DATA / "qrels" / "human.txt").read_text(encoding="utf-8").splitlines():
        qid, _, docid, grade = line.split()
        qrels[qid, docid] = grade
    return qrels


def read_run(name: str) -> dict[str, list[str]]:
    """qid -> docids best first (score descending, ties by docid descending, as trec_eval)."""
    scored: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for line in (DATA / "runs" / f"{name}.txt").read_text(encoding="utf-8").splitlines():
        qid, _, docid, _, score, _ = line.split()
        scored[qid].append((float(score), docid))
    return {qid: [d for _, d in sorted(rows, reverse=True)] for qid, rows in scored.items()}


def stuffed_passage(topic: dict[str, Any]) -> dict[str, Any]:
    [passage] = [p for p in topic["passages"] if p["role"] == "keyword-stuffed"]
    assert isinstance(passage, dict)
    return passage


def mean_precision_at_10(run: str, level: int = 2) -> float:
    qrels = human_qrels()
    ranked = read_run(run)
    per_topic = [sum(int(qrels.get((qid, d), "0")) >= level for d in ranked[qid][:10]) / 10 for qid in sorted(QIDS)]
    return sum(per_topic) / len(per_topic)


def test_at_least_eight_topics_of_every_kind() -> None:
    assert len(TOPICS) >= 8
    assert {"factoid", "non-factoid", "ambiguous"} <= {t["kind"] for t in TOPICS}
    topics_tsv = (DATA / "topics.tsv").read_text(encoding="utf-8").splitlines()
    assert {line.split("\t")[0] for line in topics_tsv} == QIDS


def test_every_topic_has_at_least_25_passages_in_the_documents_file() -> None:
    docids = {d["docid"] for d in read_jsonl(DATA / "documents.jsonl")}
    for topic in TOPICS:
        assert len(topic["passages"]) >= 25, topic["qid"]
        assert {p["docid"] for p in topic["passages"]} <= docids


def test_every_passage_has_a_human_grade_from_0_to_3() -> None:
    qrels = human_qrels()
    for topic in TOPICS:
        for passage in topic["passages"]:
            assert qrels.get((topic["qid"], passage["docid"])) in {"0", "1", "2", "3"}, passage["docid"]


def test_every_topic_has_one_keyword_stuffed_passage_graded_0() -> None:
    qrels = human_qrels()
    for topic in TOPICS:
        stuffed = stuffed_passage(topic)  # exactly one, or the unpacking fails
        assert qrels[topic["qid"], stuffed["docid"]] == "0"


def test_every_topic_has_near_duplicates_of_its_passages() -> None:
    for topic in TOPICS:
        copies = [p for p in topic["passages"] if p["role"] == "near-duplicate"]
        assert len(copies) >= 2, topic["qid"]
        for copy in copies:
            words = copy["text"].split()
            closest = max(
                difflib.SequenceMatcher(None, words, other["text"].split()).ratio()
                for other in topic["passages"]
                if other is not copy
            )
            assert closest >= 0.5, copy["docid"]


def test_at_least_six_runs_retrieve_20_or_more_per_topic() -> None:
    runs = sorted(p.stem for p in (DATA / "runs").glob("*.txt"))
    assert len(runs) >= 6
    for name in runs:
        ranked = read_run(name)
        assert set(ranked) == QIDS, name
        assert min(len(docids) for docids in ranked.values()) >= 20, name


def test_the_adversarial_run_ranks_the_stuffed_passage_first() -> None:
    ranked = read_run("adversarial-stuffer")
    for topic in TOPICS:
        assert ranked[topic["qid"]][0] == stuffed_passage(topic)["docid"], topic["qid"]


@pytest.mark.parametrize("worse", ["weak-baseline", "random-shuffle"])
def test_the_strong_run_beats_weaker_runs_on_precision_at_10(worse: str) -> None:
    assert mean_precision_at_10("rerank-strong") > mean_precision_at_10(worse)


def test_every_topic_has_answers_from_three_systems_including_the_liar() -> None:
    answers: dict[str, set[str]] = defaultdict(set)
    for path in sorted((DATA / "responses").glob("*.jsonl")):
        for record in read_jsonl(path):
            qid = record.get("qid") or record["topic_id"]
            answers[qid].add(record.get("system") or record["run_id"])
    assert set(answers) == QIDS
    for qid, systems in answers.items():
        assert len(systems) >= 3 and "liar" in systems, qid


def test_every_topic_has_a_question_bank() -> None:
    bank = {r["query_id"]: r["items"] for r in read_jsonl(DATA / "banks" / "questions.jsonl.gz")}
    assert set(bank) == QIDS
    assert all(items and all(i["question_text"] for i in items) for items in bank.values())


def test_every_topic_has_a_nugget_bank_with_vital_and_okay_nuggets() -> None:
    bank = {r["qid"]: r["nuggets"] for r in read_jsonl(DATA / "banks" / "nuggets.jsonl")}
    assert set(bank) == QIDS
    for qid, nuggets in bank.items():
        assert {n["importance"] for n in nuggets} >= {"vital", "okay"}, qid


@pytest.mark.process
def test_the_build_script_reproduces_the_files_byte_for_byte(tmp_path: Path) -> None:
    copy = tmp_path / "sample_data"
    shutil.copytree(DATA, copy, ignore=shutil.ignore_patterns("__pycache__"))
    committed = {p.relative_to(copy): p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    # Remove what the script writes (all but the hand-written sources, the script, docs and the
    # saved output of a real judge run), so that a file it no longer produces shows up as missing.
    for path in copy.rglob("*"):
        if path.is_file() and path.parent.name not in {"source", "judgments"} and path.suffix not in {".py", ".md"}:
            path.unlink()

    done = subprocess.run(
        [sys.executable, str(copy / "build_sample_files.py")], capture_output=True, text=True, timeout=120
    )

    assert done.returncode == 0, done.stderr
    rebuilt = {p.relative_to(copy): p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    assert sorted(rebuilt) == sorted(committed)
    assert [name for name in committed if rebuilt[name] != committed[name]] == []
