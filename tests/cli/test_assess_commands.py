"""`studio assess plan|list|show|pairs|import|report` on the sample project: the Contract's keys,
golden outputs, the LLM's grade listed only where the condition shows it, and every refusal (a pair
the campaign does not show, a topic in two conditions, writes around the campaign's label set)
exiting 2 with the project unchanged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli.cli_helpers import assert_matches_golden, normalised, run_clirunner

from studio.domain.campaigns import Condition, PairRole
from studio.services.project import Project
from studio.store import campaigns as campaign_store

LLM = "umbrela-smol"
PLAN = ("assess", "plan", "--name", "c1", "--llm", LLM, "--pool", "qrels:human")
COUNTS = ("--manual", "3", "--filtering", "3", "--post-editing", "4", "--seed", "1")


def studio(project: Path, home: Path, *args: str, fmt: str = "json") -> Any:
    result = run_clirunner(["--db", str(project), *args, "--format", fmt], home)
    assert result.code == 0, result.stderr
    return json.loads(result.stdout) if fmt == "json" else result.stdout


def refused(project: Path, home: Path, *args: str) -> str:
    result = run_clirunner(["--db", str(project), *args], home)
    assert result.code == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    return result.stderr


def human_labels(project: Path, home: Path) -> dict[tuple[str, str], float]:
    out = home / "human.qrels"
    run_clirunner(["--db", str(project), "export", "qrels", "human", "--out", str(out)], home)
    return {(q, d): float(g) for q, _, d, g in (line.split() for line in out.read_text().splitlines())}


def write_grades(path: Path, pairs: list[dict[str, Any]], grades: dict[tuple[str, str], float]) -> Path:
    path.write_text("".join(f"{p['qid']} 0 {p['docid']} {grades[(p['qid'], p['docid'])]:g}\n" for p in pairs))
    return path


def state(project: Path, home: Path) -> tuple[Any, Any]:
    return studio(project, home, "list", "qrels"), studio(project, home, "assess", "list")


def test_plan_pairs_import_show_and_report_match_their_golden_files(sample: Path, tmp_path: Path) -> None:
    plan = studio(sample, tmp_path, *PLAN, *COUNTS)
    assert_matches_golden("assess_plan.json", json.dumps(plan, indent=2) + "\n")
    table = studio(sample, tmp_path, *PLAN[:3], "c2", *PLAN[4:], *COUNTS, fmt="table")
    assert_matches_golden("assess_plan_table.txt", table)
    pairs = studio(sample, tmp_path, "assess", "pairs", "c1")
    assert_matches_golden("assess_pairs.tsv", studio(sample, tmp_path, "assess", "pairs", "c1", fmt="tsv"))
    grades = write_grades(tmp_path / "nist.qrels", pairs, human_labels(sample, tmp_path))
    done = studio(sample, tmp_path, "assess", "import", "c1", str(grades), "--assessor", "nist")
    assert (done["lines"], done["judged"], done["shown"]) == (len(pairs), len(pairs), len(pairs))
    shown = normalised(json.dumps(studio(sample, tmp_path, "assess", "show", "c1"), indent=2) + "\n", sample)
    assert_matches_golden("assess_show.json", shown)
    report = studio(sample, tmp_path, "assess", "report", "c1", "-m", "nDCG@10", "-m", "P(rel=2)@10")
    assert_matches_golden("assess_report.json", json.dumps(report, indent=2) + "\n")
    assert_matches_golden("assess_report.txt", studio(sample, tmp_path, "assess", "report", "c1", fmt="table"))


def test_report_keeps_the_contract_keys(sample: Path, tmp_path: Path) -> None:
    studio(sample, tmp_path, *PLAN, *COUNTS)
    report = studio(sample, tmp_path, "assess", "report", "c1", "-m", "nDCG@10")
    assert {"conditions", "anchoring", "assessors"} <= report.keys()
    for row in report["conditions"]:
        assert {"condition", "topics", "pool", "shown", "judged", "reduction", "confusion", "kendall_tau"} <= row.keys()
        assert row["reduction"] == pytest.approx(1 - row["shown"] / row["pool"])
        assert row["judged"] == 0 and row["confusion"] == []


def test_pairs_list_the_llm_grade_only_under_post_editing(sample: Path, tmp_path: Path) -> None:
    studio(sample, tmp_path, *PLAN, *COUNTS)
    llm = {(p["qid"], p["docid"]): p["llm_grade"] for p in studio(sample, tmp_path, "assess", "pairs", "c1")}
    rows = studio(sample, tmp_path, "assess", "pairs", "c1")
    assert {r["condition"] for r in rows} == {"manual", "filtering", "post-editing"}
    for row in rows:
        assert (row["llm_grade"] is not None) == (row["condition"] == "post-editing"), row
    assert all(llm[(r["qid"], r["docid"])] is None for r in rows if r["condition"] != "post-editing")
    tsv = studio(sample, tmp_path, "assess", "pairs", "c1", fmt="tsv").splitlines()
    assert tsv[0].split("\t") == ["qid", "docid", "condition", "llm_grade"]
    assert all(line.split("\t")[3] == "" for line in tsv[1:] if line.split("\t")[2] != "post-editing")


def test_remaining_pairs_shrink_as_an_assessor_grades(sample: Path, tmp_path: Path) -> None:
    studio(sample, tmp_path, *PLAN, *COUNTS, "--assessors", "alice,bob", "--overlap", "0.2")
    alice = studio(sample, tmp_path, "assess", "pairs", "c1", "--assessor", "alice")
    grades = write_grades(tmp_path / "a.qrels", alice[:10], human_labels(sample, tmp_path))
    studio(sample, tmp_path, "assess", "import", "c1", str(grades), "--assessor", "alice")
    left = studio(sample, tmp_path, "assess", "pairs", "c1", "--assessor", "alice", "--remaining")
    assert left == alice[10:]
    progress = studio(sample, tmp_path, "assess", "show", "c1")["assessors"]
    assert sum(r["graded"] for r in progress if r["assessor"] == "alice") == 10
    assert sum(r["given"] for r in progress if r["assessor"] == "alice") == len(alice)


def test_an_import_naming_a_pair_the_campaign_does_not_show_is_refused_whole(sample: Path, tmp_path: Path) -> None:
    studio(sample, tmp_path, *PLAN, *COUNTS)
    pairs = studio(sample, tmp_path, "assess", "pairs", "c1")
    shown = {(p["qid"], p["docid"]) for p in pairs}
    labels = human_labels(sample, tmp_path)
    dropped = next(pair for pair in labels if pair not in shown)
    path = tmp_path / "mixed.qrels"
    path.write_text(f"{pairs[0]['qid']} 0 {pairs[0]['docid']} 1\n{dropped[0]} 0 {dropped[1]} 2\n")
    before = state(sample, tmp_path)
    error = refused(sample, tmp_path, "assess", "import", "c1", str(path), "--assessor", "nist")
    assert f"mixed.qrels:2: ({dropped[0]}, {dropped[1]}) is not shown by c1" in error
    assert state(sample, tmp_path) == before


def test_an_import_of_a_pair_given_to_another_assessor_is_refused(sample: Path, tmp_path: Path) -> None:
    studio(sample, tmp_path, *PLAN, *COUNTS, "--assessors", "alice,bob")
    bob = studio(sample, tmp_path, "assess", "pairs", "c1", "--assessor", "bob")
    path = write_grades(tmp_path / "b.qrels", bob[:1], {(bob[0]["qid"], bob[0]["docid"]): 1.0})
    assert "is not given to alice" in refused(
        sample, tmp_path, "assess", "import", "c1", str(path), "--assessor", "alice"
    )
    assert "gives no pair to 'carol'" in refused(
        sample, tmp_path, "assess", "import", "c1", str(path), "--assessor", "carol"
    )


def test_the_campaigns_label_set_takes_no_write_around_it(sample: Path, tmp_path: Path) -> None:
    studio(sample, tmp_path, *PLAN, *COUNTS)
    pair = studio(sample, tmp_path, "assess", "pairs", "c1")[0]
    before = state(sample, tmp_path)
    assert "campaign c1's label set" in refused(
        sample, tmp_path, "label", "--qrels", "c1", pair["qid"], pair["docid"], "2"
    )
    path = tmp_path / "any.qrels"
    path.write_text(f"{pair['qid']} 0 {pair['docid']} 1\n")
    assert "campaign c1's label set" in refused(
        sample, tmp_path, "import", "qrels", str(path), "--name", "c1", "--replace"
    )
    assert state(sample, tmp_path) == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--manual", "20"), "the pool has 10 topics left"),
        (("--manual", "3", "--overlap", "0.2"), "name them with --assessors"),
        (("--manual", "3", "--assessors", "alice", "--overlap", "0.5"), "an overlap needs at least two assessors"),
        ((), "a campaign needs topics"),
    ],
)
def test_a_plan_that_cannot_be_made_is_refused(
    sample: Path, tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    before = state(sample, tmp_path)
    assert message in refused(sample, tmp_path, *PLAN, *args)
    assert state(sample, tmp_path) == before


def test_topic_files_assign_topics_and_a_topic_in_two_conditions_is_refused(sample: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "m.txt", tmp_path / "p.txt"
    first.write_text("1001\n1003\n")
    second.write_text("1003\n")
    assert "is given to manual and to post-editing" in refused(
        sample, tmp_path, *PLAN, "--manual", str(first), "--post-editing", str(second)
    )
    second.write_text("nope\n")
    assert "topic 'nope' has no pair in the pool" in refused(sample, tmp_path, *PLAN, "--post-editing", str(second))
    second.write_text("1007\n")
    studio(sample, tmp_path, *PLAN, "--manual", str(first), "--post-editing", str(second), "--filtering", "2")
    conditions = {r["condition"]: r["topics"] for r in studio(sample, tmp_path, "assess", "show", "c1")["conditions"]}
    assert conditions == {"manual": 2, "filtering": 2, "post-editing": 1}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("assess", "show", "nope"), "no campaign named 'nope'"),
        (("assess", "report", "nope"), "no campaign named 'nope'"),
        (("assess", "plan", "--name", "x", "--llm", "nope", "--pool", "qrels:human", "--manual", "1"), "no label set"),
        (
            ("assess", "plan", "--name", "x", "--llm", LLM, "--pool", "responses", "--manual", "1"),
            "qrels:NAME or runs:K",
        ),
        (("assess", "plan", "--name", "human", "--llm", LLM, "--pool", "runs:5", "--manual", "1"), "human"),
    ],
)
def test_bad_names_are_refused(sample: Path, tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    assert message in refused(sample, tmp_path, *args)


def test_a_recall_sample_is_walked_blind_among_the_blind_pairs_and_its_label_set_is_owned(
    sample: Path, tmp_path: Path
) -> None:
    """The recall sample once came last in the walk, where it was easy to spot: its pairs are now
    interleaved with the pairs shown blind (a filtering topic's among its own), listed as manual
    pairs are, never last; the plan, `assess show` and `assess list` count `shown` alike."""
    plan = studio(sample, tmp_path, *PLAN, *COUNTS, "--recall-sample", "12")
    rows = studio(sample, tmp_path, "assess", "pairs", "c1")
    assert len(rows) == plan["shown"] + 12
    with Project.open(sample) as project:
        walk = [p for p in campaign_store.pairs(project.db.cursor(), 1) if p.shown]
    assert [(p.qid, p.docid) for p in walk] == [(r["qid"], r["docid"]) for r in rows]
    at = [i for i, p in enumerate(walk) if p.role is PairRole.recall]
    assert len(at) == 12 and at != list(range(len(walk) - 12, len(walk))) and at[-1] != len(walk) - 1
    for i in at:
        assert rows[i]["condition"] == "manual" and rows[i]["llm_grade"] is None
        pair = walk[i]
        if pair.topic_condition is Condition.filtering:  # among its own topic's pairs
            assert walk[i + 1].qid == pair.qid
        else:  # just before a pair shown blind
            assert not walk[i + 1].condition.shows_llm
    again = studio(sample, tmp_path, *PLAN[:3], "c3", *PLAN[4:], *COUNTS, "--recall-sample", "12")
    rows_again = studio(sample, tmp_path, "assess", "pairs", "c3")
    assert again["shown"] == plan["shown"] and rows_again == rows  # the seed draws the same walk
    last = rows[at[-1]]
    message = refused(sample, tmp_path, "label", "--qrels", "c1-recall", last["qid"], last["docid"], "1")
    assert "c1-recall is campaign" in message
    assert "the conditions drop" in refused(
        sample, tmp_path, *PLAN[:3], "c2", *PLAN[4:], *COUNTS, "--recall-sample", "999"
    )
    shown = studio(sample, tmp_path, "assess", "show", "c1")
    assert (shown["recall_sample"], shown["recall_judged"]) == (12, 0)
    assert shown["shown"] == plan["shown"] == sum(c["shown"] for c in shown["conditions"])
    listed = {row["campaign"]: row for row in studio(sample, tmp_path, "assess", "list")}
    assert listed["c1"]["shown"] == plan["shown"]


def test_a_report_reads_one_state_of_the_llm_set(sample: Path, tmp_path: Path) -> None:
    """The LLM label set replaced after planning: the report once took its confusion from the grades
    the campaign kept and its τ from the new set, with no word of it. It reads the kept grades for
    every figure and says what changed; `--live` reads today's set for τ and the confusion."""
    studio(sample, tmp_path, *PLAN, *COUNTS)
    pairs = studio(sample, tmp_path, "assess", "pairs", "c1")
    grades = write_grades(tmp_path / "nist.qrels", pairs, human_labels(sample, tmp_path))
    studio(sample, tmp_path, "assess", "import", "c1", str(grades), "--assessor", "nist")
    before = studio(sample, tmp_path, "assess", "report", "c1", "-m", "nDCG@10")
    assert before["llm_state"] == {
        "grades": "planned",
        "changed": False,
        "pairs_written": 0,
        "pool_pairs_differing": 0,
        "note": None,
    }
    out = tmp_path / "llm.qrels"
    run_clirunner(["--db", str(sample), "export", "qrels", LLM, "--out", str(out)], tmp_path)
    flipped = [line.split() for line in out.read_text().splitlines()]
    out.write_text("".join(f"{q} 0 {d} {3 - float(g):g}\n" for q, _, d, g in flipped))
    imported = run_clirunner(["--db", str(sample), "import", "qrels", str(out), "--name", LLM, "--replace"], tmp_path)
    assert imported.code == 0, imported.stderr
    kept = run_clirunner(["--db", str(sample), "assess", "report", "c1", "-m", "nDCG@10", "--format", "json"], tmp_path)
    report = json.loads(kept.stdout)
    assert f"note: {LLM} changed since campaign c1 was planned" in kept.stderr
    assert report["llm_state"]["changed"] and report["llm_state"]["grades"] == "planned"
    assert report["llm_state"]["pool_pairs_differing"] > 0
    assert [c["kendall_tau"] for c in report["conditions"]] == [c["kendall_tau"] for c in before["conditions"]]
    assert [c["confusion"] for c in report["conditions"]] == [c["confusion"] for c in before["conditions"]]
    assert report["anchoring"] == before["anchoring"]
    live = studio(sample, tmp_path, "assess", "report", "c1", "-m", "nDCG@10", "--live")
    assert live["llm_state"]["grades"] == "today" and "--live" in live["llm_state"]["note"]
    assert [c["kendall_tau"] for c in live["conditions"]] != [c["kendall_tau"] for c in before["conditions"]]
    assert [c["confusion"] for c in live["conditions"]] != [c["confusion"] for c in before["conditions"]]
