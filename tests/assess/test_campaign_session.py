"""Walking a campaign (the session the TUI drives): the LLM's grade and its group only under
post-editing, groups from the highest grade, each grade an audited edit with its assessor, condition,
seconds and visibility, `keep` under post-editing only, undo, resuming, and two assessors of a
shared pair making its label together."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from helpers import cli

from studio.domain.campaigns import PoolPair
from studio.domain.errors import UsageError
from studio.services.project import Project
from studio.store import audits as audit_store
from studio.store import campaigns as campaign_store


@pytest.fixture()
def project(sample: Path) -> Iterator[Project]:
    with Project.open(sample) as opened:
        opened.plan_campaign(
            "c1",
            llm="umbrela-smol",
            pool="qrels:human",
            manual="2",
            filtering="2",
            post_editing="3",
            assessors=["alice", "bob"],
            overlap=0.3,
            seed=2,
        )
        yield opened


def labels(project: Project, name: str) -> dict[tuple[str, str], float]:
    return {(q, d): g for q, d, g in audit_store.pool(project.db.cursor(), name)}


def llm_grades(project: Project) -> dict[tuple[str, str], float]:
    return labels(project, "umbrela-smol")


def test_only_post_editing_shows_the_llm_grade_and_its_group_from_the_highest(project: Project) -> None:
    session = project.walk_campaign("c1", person="alice")
    session.load()
    llm = llm_grades(project)
    views = [session.pair_view(pair) for pair in session.pairs]
    assert {v["condition"] for v in views} == {"manual", "filtering", "post-editing"}
    for view in views:
        if view["condition"] == "post-editing":
            assert view["llm_grade"] == llm[(view["qid"], view["docid"])]
            assert view["group"] is not None and f"({view['llm_grade']:g})" in view["group"]
        else:
            assert view["llm_grade"] is None and view["group"] is None and not view["opens_group"]
    post = [v for v in views if v["condition"] == "post-editing"]
    for qid in {v["qid"] for v in post}:
        grades = [v["llm_grade"] for v in post if v["qid"] == qid]
        assert grades == sorted(grades, key=lambda g: -(g or 0.0))
        assert sum(v["opens_group"] for v in post if v["qid"] == qid) == len(set(grades))


def test_each_grade_is_an_audited_edit_with_condition_seconds_and_visibility(project: Project) -> None:
    session = project.walk_campaign("c1", person="alice")
    session.load()
    walked: list[PoolPair] = []
    while not session.finished and len(walked) < len(session.pairs):
        pair = session.current()
        assert pair is not None
        walked.append(pair)
        session.grade(2.0)
    found = campaign_store.campaign(project.db.cursor(), "c1")
    assert found is not None
    rows = campaign_store.standing(project.db.cursor(), found["campaign_id"])
    assert len(rows) == len(walked)
    for row, pair in zip(rows, walked, strict=True):
        assert (row["qid"], row["docid"], row["assessor"]) == (pair.qid, pair.docid, "alice")
        assert row["condition"] == str(pair.condition)
        assert row["llm_visible"] is (str(pair.condition) == "post-editing")
        assert row["seconds"] is not None and row["seconds"] >= 0
    history = project.label_history("c1", limit=1)[0]
    assert history["origin"] == "person" and "alice graded 2" in str(history["note"])


def test_keep_gives_the_llm_grade_under_post_editing_only(project: Project) -> None:
    session = project.walk_campaign("c1", person="alice")
    session.load()
    while (pair := session.current()) is not None and str(pair.condition) != "post-editing":
        with pytest.raises(UsageError, match="only post-editing"):
            session.keep_llm()
        session.grade(1.0)
    pair = session.current()
    assert pair is not None
    written = session.keep_llm()
    assert written is not None and written["grade"] == pair.llm_grade and written["llm_visible"]


def test_undo_takes_back_the_newest_grade_and_a_new_session_resumes_where_one_stopped(project: Project) -> None:
    session = project.walk_campaign("c1", person="bob")
    session.load()
    first, second = session.pairs[0], session.pairs[1]
    session.grade(3.0)
    session.grade(0.0)
    undone = session.undo()
    assert undone is not None and (undone["qid"], undone["docid"]) == (second.qid, second.docid)
    assert session.current() == second
    assert labels(project, "c1") == {(first.qid, first.docid): 3.0}
    again = project.walk_campaign("c1", person="bob")
    again.load()
    assert again.current() == second and again.progress() == (1, len(again.pairs))


def test_a_pair_two_assessors_share_is_labelled_with_their_mean(project: Project) -> None:
    alice, bob = project.walk_campaign("c1", person="alice"), project.walk_campaign("c1", person="bob")
    alice.load()
    bob.load()
    shared = next(p for p in alice.pairs if p in bob.pairs)
    for session, grade in ((alice, 1.0), (bob, 2.0)):
        session.position = session.pairs.index(shared)
        session.grade(grade)
    assert labels(project, "c1")[(shared.qid, shared.docid)] == 1.5
    agreement = project.campaign_report("c1")["assessors"]["agreement"][str(shared.condition)]
    assert agreement["overlap_pairs"] == 1 and agreement["couples"][0]["agreeing"] == 0


def test_a_person_the_campaign_gives_no_pair_is_refused(project: Project) -> None:
    with pytest.raises(UsageError, match="gives no pair to 'carol'"):
        project.walk_campaign("c1", person="carol").load()


def test_check_passes_on_a_graded_campaign_and_finds_a_label_written_around_it(sample: Path) -> None:
    with Project.open(sample) as project:
        project.plan_campaign(
            "c1", llm="umbrela-smol", pool="qrels:human", manual="2", filtering="2", recall_sample=5, seed=2
        )
        session = project.walk_campaign("c1", person="alice")
        session.load()
        for grade in (1.0, 2.0, 3.0):
            session.grade(grade)
        session.position = len(session.pairs) - 1  # a recall pair: its grade goes to c1-recall
        session.grade(2.0)
        session.undo()
        session.grade(0.0)
    report = json.loads(cli(sample, "check", "--format", "json").stdout)
    [campaigns] = [c for c in report["checks"] if c["check"] == "campaigns"]
    assert report["ok"] and campaigns["checked"] == 4
    with duckdb.connect(str(sample)) as con:  # another program writes a label of the campaign's set
        con.execute(
            "INSERT INTO label_event_sources VALUES (nextval('label_event_source_ids'), 'import', 'elsewhere');"
            " INSERT INTO label_event_rows (event_id, label_set_id, qid, docid, grade, previous, source_id, batch_id)"
            " SELECT nextval('label_event_ids'), label_set_id, '1001', 'p1001-01', 3, NULL,"
            " (SELECT max(source_id) FROM label_event_sources), (SELECT min(batch_id) FROM batches)"
            " FROM label_sets WHERE name = 'c1'"
        )
    result = cli(sample, "check", "--format", "json")
    report = json.loads(result.stdout)
    [campaigns] = [c for c in report["checks"] if c["check"] == "campaigns"]
    assert result.exit_code == 1 and campaigns["problems"] == 1 and "c1 1001 p1001-01" in campaigns["examples"][0]


def test_undo_never_takes_back_a_grade_a_concurrent_import_wrote(project: Project, tmp_path: Path) -> None:
    """The TUI's `u` once undid grades the TUI never made: an `assess import` for the same assessor,
    run while the session was open, made the newest grade, and undo took it back. The walk is the
    TUI's session; the import runs between its grade and its undo, deterministically."""
    session = project.walk_campaign("c1", person="bob")
    session.load()
    mine = session.pairs[0]
    session.grade(2.0)
    imported = [p for p in session.pairs[1:] if (p.qid, p.docid) != (mine.qid, mine.docid)][:2]
    qrels = tmp_path / "bob.qrels"
    qrels.write_text("".join(f"{p.qid} 0 {p.docid} 3\n" for p in imported))
    project.import_campaign("c1", qrels, assessor="bob")
    undone = session.undo()
    assert undone is not None and (undone["qid"], undone["docid"]) == (mine.qid, mine.docid)
    after = labels(project, "c1")
    assert (mine.qid, mine.docid) not in after
    assert all(after[(p.qid, p.docid)] == 3.0 for p in imported)  # the import's grades stand
    assert session.undo() is None  # nothing graded on a screen is left to take back
    assert all(labels(project, "c1")[(p.qid, p.docid)] == 3.0 for p in imported)
