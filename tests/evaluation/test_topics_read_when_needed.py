"""A run over many topics costs a leaderboard only the topics its label set labels.

Oracle: trec_eval (pytrec_eval) on the same runs, the wide one included; the rankings held in
memory are counted through the engine's topic table.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from evaluation_builders import Collection, trec_eval_means, write_run

from studio import Project
from studio.domain.errors import UsageError
from studio.metrics.rankings import TopicRanking, TopicTable
from studio.store import rankings as ranking_store

WIDE_TOPICS = 3000


def wide_run() -> dict[str, dict[str, float]]:
    """One document per topic over thousands of topics no label set labels, and a few it does."""
    run = {f"w{q:05d}": {"a": 1.0} for q in range(WIDE_TOPICS)}
    run["1"] = {"a": 2.0, "b": 1.0}
    run["10"] = {"d1": 3.0}
    return run


@pytest.fixture
def wide_project(project: Project, db: Path) -> Project:
    project.import_runs([write_run(db.parent / "wide.run", "wide", wide_run())])
    return project


def test_a_leaderboard_reads_only_the_labelled_topics(wide_project: Project, collection: Collection) -> None:
    runs, human, _ = collection
    board = wide_project.leaderboard("human", "nDCG@10")
    held = wide_project.engine.rankings().topics.held()
    assert held <= len(human)  # not the thousands of topics the wide run ranks
    want = trec_eval_means({**runs, "wide": wide_run()}, human, "nDCG@10")
    assert board == pytest.approx(want, abs=1e-12, rel=0)


def test_walking_every_topic_reads_them_all_once(wide_project: Project) -> None:
    wide_project.leaderboard("human", "nDCG@10")
    topics = wide_project.engine.rankings().topics
    first = topics["1"]
    every = list(topics)
    assert len(every) >= WIDE_TOPICS
    assert every == sorted(every, key=lambda q: q.encode("utf-8"))  # trec_eval's topic order
    assert topics["1"] is first  # a ranking read before keeps its identity (and its docids)


def test_a_topic_chosen_but_labelled_by_nothing_is_still_known(wide_project: Project) -> None:
    # Ranked by the wide run only: a valid choice of topic, with no value under the label set.
    rows = wide_project.evaluate("human", ["P@5"], topics=["1", "w00007"])
    assert {row["topics"] for row in rows} <= {0, 1}
    with pytest.raises(UsageError, match="'w99999' is not in the project"):
        wide_project.evaluate("human", ["P@5"], topics=["1", "w99999"])


def test_a_run_stored_after_the_runs_were_read_is_left_out_of_later_topics(
    project: Project, db: Path, collection: Collection
) -> None:
    con = project.db.cursor()
    known = ranking_store.ranked_runs(con)
    project.import_runs([write_run(db.parent / "late.run", "late", {"1": {"a": 1.0}})])
    stored = ranking_store.fetch_rankings(con, ["1"], known)
    assert stored.runs == known[0]
    assert sorted(set(stored.run.tolist())) == list(range(len(collection[0])))  # no row of "late"


def _ranking(qid: str) -> TopicRanking:
    return TopicRanking(qid, np.zeros((1, 1), dtype=np.intp), np.ones(1, dtype=np.int64), 1, lambda: ["d"])


def test_the_table_asks_its_loader_only_for_topics_not_read() -> None:
    stored = {q: _ranking(q) for q in ("b", "a", "c")}
    asked: list[list[str] | None] = []

    def load(qids: Sequence[str] | None) -> dict[str, TopicRanking]:
        asked.append(None if qids is None else list(qids))
        return dict(sorted(stored.items())) if qids is None else {q: stored[q] for q in qids if q in stored}

    table = TopicTable(load)
    table.read(["a", "zz", "a"])
    assert "a" in table and "zz" not in table and table.get("zz") is None
    assert table["a"] is stored["a"]
    with pytest.raises(KeyError):
        table["zz"]
    assert asked == [["a", "zz"]]  # once, without repeats: "zz" is remembered as unranked
    assert list(table) == ["a", "b", "c"] and len(table) == 3
    table.read(["q"])
    assert asked == [["a", "zz"], None]  # everything read: nothing more to ask
