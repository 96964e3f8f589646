"""The real TREC Deep Learning 2019/2020 passage qrels and topics, as NIST published them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from studio.services.project import Project

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "trec-dl"

if not DATA.is_dir():
    pytest.skip(f"TREC DL data not found at {DATA.resolve()}", allow_module_level=True)

# Counts as documented in the data folder's README (NIST's official files).
QRELS = {
    "qrels.dl19-passage": ("qrels.dl19-passage.txt", 43, 9_260),
    "qrels.dl20-passage": ("qrels.dl20-passage.txt", 54, 11_386),
}


def read_qrels(path: Path) -> dict[tuple[str, str], int]:
    """The file read with plain Python: (qid, docid) -> grade."""
    grades = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        qid, _, docid, grade = line.split()
        grades[qid, docid] = int(grade)
    return grades


def read_topics(path: Path) -> dict[str, str]:
    topics = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        qid, text = line.split("\t")
        topics[qid] = text.strip()
    return topics


@pytest.fixture(scope="module")
def project() -> Iterator[Project]:
    with Project.open(":memory:") as opened:
        opened.import_qrels([DATA / file for file, _, _ in QRELS.values()])
        yield opened


def current_labels(project: Project, name: str) -> dict[tuple[str, str], float]:
    rows = (
        project.db.cursor()
        .execute(
            "SELECT qid, docid, grade FROM labels JOIN label_sets USING (label_set_id) WHERE name = ?",
            [name],
        )
        .fetchall()
    )
    return {(qid, docid): grade for qid, docid, grade in rows}


def test_label_sets_have_the_published_topic_and_judgment_counts(project: Project) -> None:
    listed = {s["name"]: (s["kind"], s["topics"], s["pairs"], s["events"]) for s in project.label_sets()}
    assert listed == {name: ("human", topics, pairs, pairs) for name, (_, topics, pairs) in QRELS.items()}


@pytest.mark.parametrize("name", QRELS)
def test_current_labels_equal_the_file(project: Project, name: str) -> None:
    expected = read_qrels(DATA / QRELS[name][0])
    assert len(expected) == QRELS[name][2]
    assert current_labels(project, name) == expected


@pytest.mark.parametrize("name", QRELS)
def test_relevant_counts_match_the_file(project: Project, name: str) -> None:
    (listed,) = [s for s in project.label_sets() if s["name"] == name]
    assert listed["relevant"] == sum(grade > 0 for grade in read_qrels(DATA / QRELS[name][0]).values())


def test_dl20_topics_are_all_loaded_with_their_text() -> None:
    expected = read_topics(DATA / "topics.dl20.txt")
    assert len(expected) == 200
    with Project.open(":memory:") as project:
        project.import_topics(DATA / "topics.dl20.txt")
        topics = project.topics()
    assert {t["qid"]: t["text"] for t in topics} == expected
    assert all(t["docs"] == 0 and t["judged"] == 0 for t in topics)


def test_dl20_topics_with_their_qrels_show_54_judged_topics() -> None:
    qrels = read_qrels(DATA / "qrels.dl20-passage.txt")
    with Project.open(":memory:") as project:
        project.import_topics(DATA / "topics.dl20.txt")
        project.import_qrels(DATA / "qrels.dl20-passage.txt", name="human")
        topics = project.topics()
    assert len(topics) == 200
    judged = {t["qid"]: t["judged"] for t in topics if t["judged"]}
    assert len(judged) == 54
    assert judged == {qid: sum(q == qid for q, _ in qrels) for qid in judged}
