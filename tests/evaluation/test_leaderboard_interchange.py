"""Leaderboards out in the evaluation tools' layouts and back in as score tables, correlated
against; label probabilities in and out. Oracle: trec_eval's C code (pytrec_eval)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from evaluation_builders import TREC_EVAL_NAMES, Collection, trec_eval_per_topic
from helpers import scalar

from studio import Project
from studio.domain.choices import LeaderboardLayout
from studio.domain.errors import InputError, UsageError
from studio.formats.leaderboard_layouts import MEAN_TOPIC, studio_name
from studio.formats.leaderboard_reader import parse_leaderboard
from studio.store import labels as label_store
from studio.store import score_tables as score_store

MEASURES = ["nDCG@10", "AP", "P@5", "RR", "R@100", "Rprec"]
TEXT_LAYOUTS = [LeaderboardLayout.trec_eval, LeaderboardLayout.tot, LeaderboardLayout.ir_measures, "jsonl"]


def board(project: Project, *, per_topic: bool = True) -> dict[tuple[str, str, str], float]:
    """{(run, measure, topic): value} of `studio eval` under the human labels."""
    return {
        (row["run"], row["measure"], row.get("topic", MEAN_TOPIC)): row["value"]
        for row in project.evaluate("human", MEASURES, per_topic=per_topic)
    }


def test_the_trec_eval_layout_holds_what_trec_eval_computes(
    project: Project, collection: Collection, tmp_path: Path
) -> None:
    runs, human, _ = collection
    out = tmp_path / "board.txt"
    project.export_leaderboard("human", MEASURES, out, "trec_eval", per_topic=True)
    blocks: dict[str, dict[tuple[str, str], str]] = {}
    current: dict[tuple[str, str], str] = {}
    previous_topic = ""
    for line in out.read_text().splitlines():
        measure, topic, value = (column.strip() for column in line.split("\t"))
        if previous_topic == MEAN_TOPIC and topic != MEAN_TOPIC:  # the next run's block
            current = {}
        previous_topic = topic
        if measure == "runid":
            blocks[value] = current
        current[(measure, topic)] = value
    assert sorted(blocks) == sorted(runs)
    for measure in MEASURES:
        per_topic = trec_eval_per_topic(runs, human, measure)
        name = TREC_EVAL_NAMES[measure][1]  # the name trec_eval prints
        for run, values in per_topic.items():
            for qid, computed in values.items():
                if qid in human:
                    assert blocks[run][(name, qid)] == f"{computed:6.4f}", (run, measure, qid)
            judged = [v for q, v in values.items() if q in human]
            assert blocks[run][(name, MEAN_TOPIC)] == f"{sum(judged) / len(judged):6.4f}", (run, measure)


@pytest.mark.parametrize("layout", TEXT_LAYOUTS)
def test_an_exported_leaderboard_reads_back_as_the_leaderboard(
    project: Project, tmp_path: Path, layout: LeaderboardLayout
) -> None:
    out = tmp_path / "board.out"
    project.export_leaderboard("human", MEASURES, out, layout, per_topic=True)
    parsed = parse_leaderboard(out.read_text(), str(out))
    assert parsed.layout == layout
    read = {(r.run, r.measure, r.topic): r.value for r in parsed.rows}
    want = board(project)
    assert sorted(read) == sorted(want)
    if layout is LeaderboardLayout.trec_eval:  # four decimals, as trec_eval writes
        assert read == {key: float(f"{value:.4f}") for key, value in want.items()}
    else:
        assert read == want


def test_an_imported_leaderboard_is_listed_and_correlates_with_the_label_set_it_came_from(
    project: Project, tmp_path: Path
) -> None:
    out = tmp_path / "human.tot"
    project.export_leaderboard("human", MEASURES, out, "tot", per_topic=True)
    report = project.import_leaderboard(out, name="published")
    assert report.counts == {"runs": len(project.runs()), "measures": len(MEASURES), "values": len(board(project))}
    (listed,) = project.leaderboards()
    assert (listed["name"], listed["layout"], listed["runs"], listed["measures"]) == (
        "published",
        "tot",
        len(project.runs()),
        len(MEASURES),
    )
    same = project.correlation("leaderboard:published", "human", "AP")
    assert (same["kendall_tau"], same["swaps"], same["unmatched_runs"]) == (1.0, 0, [])
    llm = project.correlation("leaderboard:published", "llm", "AP")
    assert llm["kendall_tau"] == project.correlation("human", "llm", "AP")["kendall_tau"]
    assert llm["leaderboard"] == project.correlation("human", "llm", "AP")["leaderboard"]
    flipped = project.correlation("llm", "leaderboard:published", "AP")
    assert flipped["spearman_rho"] == project.correlation("llm", "human", "AP")["spearman_rho"]


def test_trec_eval_names_are_found_by_the_studios(project: Project, tmp_path: Path) -> None:
    out = tmp_path / "te.txt"
    project.export_leaderboard("human", ["nDCG@10"], out, "trec_eval")
    assert "ndcg_cut_10" in out.read_text()
    project.import_leaderboard(out, name="te")
    assert project.correlation("leaderboard:te", "human", "nDCG@10")["kendall_tau"] == 1.0
    with pytest.raises(UsageError, match="holds no means of AP"):
        project.correlation("leaderboard:te", "human", "AP")
    with pytest.raises(UsageError, match="no leaderboard named 'nope'"):
        project.correlation("leaderboard:nope", "human", "AP")


def test_runs_on_one_side_only_are_named_and_left_out(project: Project, tmp_path: Path) -> None:
    path = tmp_path / "two.tsv"
    path.write_text("bm25\tAP\tall\t0.5\ndense\tAP\tall\t0.25\nelsewhere\tAP\tall\t0.9\n")
    project.import_leaderboard(path, name="two", layout="tot")
    result = project.correlation("leaderboard:two", "human", "AP")
    assert result["runs"] == 2
    assert "elsewhere" in result["unmatched_runs"] and "mono" in result["unmatched_runs"]


def test_a_refused_leaderboard_leaves_the_project_as_it_was(project: Project, tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("bm25\tAP\tall\t0.5\nbm25\tAP\t1\tinf\n")
    with pytest.raises(InputError) as refused:
        project.import_leaderboard(path, name="bad")
    assert (refused.value.line, project.leaderboards()) == (2, [])
    assert score_store.score_table_id(project.db.cursor(), "bad") is None
    good = tmp_path / "good.txt"
    good.write_text("bm25\tAP\tall\t0.5\n")
    project.import_leaderboard(good, name="good", layout="tot")
    with pytest.raises(UsageError, match="already exists"):
        project.import_leaderboard(good, name="good", layout="tot")
    project.import_leaderboard(path.with_name("good.txt"), name="good", layout="ir_measures", replace=True)
    assert [row["layout"] for row in project.leaderboards()] == ["ir_measures"]


def test_latex_export_refuses_per_topic_values(project: Project, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="means only"):
        project.export_leaderboard("human", MEASURES, tmp_path / "t.tex", "latex", per_topic=True)
    assert not (tmp_path / "t.tex").exists()
    project.export_leaderboard("human", ["AP"], tmp_path / "t.tex")
    assert (tmp_path / "t.tex").read_text().startswith("% \\usepackage{booktabs}")


def test_label_probabilities_become_a_label_set_and_come_back_out(project: Project, tmp_path: Path) -> None:
    source = tmp_path / "lara.csv"
    source.write_text("qid,docid,prob_0,prob_1,prob_2,prob_3\n1,a,0.1,0.2,0.3,0.4\n1,b,0.25,0.25,0.25,0.25\n")
    report = project.import_probs(source, name="lara")
    assert report.counts["distributions"] == 2
    con = project.db.cursor()
    set_id = scalar(con, "SELECT label_set_id FROM label_sets WHERE name = 'lara'")
    labels = {(row.qid, row.docid): row.grade for row in label_store.current_labels(con, set_id)}
    assert labels == {("1", "a"): 3.0, ("1", "b"): 0.0}
    out = tmp_path / "out.csv"
    project.export_probs("lara", out)
    assert out.read_text() == "topic_id,doc_id,prob_0,prob_1,prob_2,prob_3\n1,a,0.1,0.2,0.3,0.4\n" + (
        "1,b,0.25,0.25,0.25,0.25\n"
    )
    (run,) = [r for r in project.judge_runs() if r["label_set"] == "lara"]
    assert (run["method"], run["pairs"]) == ("umbrela", 2)
    with pytest.raises(UsageError, match="not made by a judge"):
        project.export_probs("human", tmp_path / "no.csv")


def test_refused_probabilities_leave_no_label_set(project: Project, tmp_path: Path) -> None:
    source = tmp_path / "bad.csv"
    source.write_text("qid,docid,prob_yes,prob_no\n1,a,0.5,0.5\n1,b,0.7,0.7\n")
    before = [row["name"] for row in project.label_sets()]
    with pytest.raises(InputError, match="sum to") as refused:
        project.import_probs(source, name="bad")
    assert refused.value.line == 3
    assert [row["name"] for row in project.label_sets()] == before


def test_jsonl_rows_are_objects_per_run_measure_and_topic(project: Project, tmp_path: Path) -> None:
    out = tmp_path / "b.jsonl"
    project.export_leaderboard("human", ["AP"], out, per_topic=True)  # the name asks for JSONL
    first = json.loads(out.read_text().splitlines()[0])
    assert set(first) == {"run", "measure", "topic", "value"}
    assert studio_name(first["measure"]) == "AP"
