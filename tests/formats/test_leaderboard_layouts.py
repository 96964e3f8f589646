"""Leaderboard layouts (trec_eval, tot, ir_measures, JSONL, LaTeX): written, read back, told apart,
and refused with the file and line."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from studio.domain.choices import LeaderboardLayout
from studio.domain.errors import InputError
from studio.formats.leaderboard_layouts import (
    MEAN_TOPIC,
    ScoreRow,
    latex_escaped,
    studio_name,
    trec_eval_name,
    write_ir_measures,
    write_jsonl,
    write_latex,
    write_tot,
    write_trec_eval,
)
from studio.formats.leaderboard_reader import detect_layout, parse_leaderboard

# Names as the studio stores them: composed (NFC), as every name it reads is.
RUN_NAMES = st.text(st.characters(codec="utf-8", categories=("L", "N", "P")), min_size=1, max_size=12).map(
    lambda name: unicodedata.normalize("NFC", name)
)
TOPICS = st.from_regex(r"[A-Za-z0-9_.-]{1,8}", fullmatch=True).filter(lambda topic: topic != MEAN_TOPIC)
MEASURES = st.sampled_from(["nDCG@10", "AP", "P@10", "RR", "R@100", "Rprec", "nDCG", "P(rel=2)@5", "Judged@10"])
VALUES = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@st.composite
def leaderboards(draw: st.DrawFn) -> list[ScoreRow]:
    """Rows as the studio writes them: each run's per-topic values, then its means."""
    runs = draw(st.lists(RUN_NAMES, min_size=1, max_size=4, unique=True))
    measures = draw(st.lists(MEASURES, min_size=1, max_size=3, unique=True))
    topics = draw(st.lists(TOPICS, max_size=3, unique=True))
    rows = []
    for run in runs:
        rows += [ScoreRow(run, m, t, draw(VALUES)) for t in topics for m in measures]
        rows += [ScoreRow(run, m, MEAN_TOPIC, draw(VALUES)) for m in measures]
    return rows


WRITERS: dict[LeaderboardLayout, Callable[[Sequence[ScoreRow]], str]] = {
    LeaderboardLayout.tot: write_tot,
    LeaderboardLayout.ir_measures: write_ir_measures,
    LeaderboardLayout.jsonl: write_jsonl,
}


@pytest.mark.parametrize("layout", list(WRITERS))
@given(rows=leaderboards())
def test_the_full_precision_layouts_read_back_to_the_same_values(
    layout: LeaderboardLayout, rows: list[ScoreRow]
) -> None:
    text = WRITERS[layout](rows)
    parsed = parse_leaderboard(text, "board")
    assert parsed.layout is layout
    assert parsed.rows == rows


@given(rows=leaderboards())
def test_the_trec_eval_layout_reads_back_to_four_decimals_with_each_run_named(rows: list[ScoreRow]) -> None:
    topics = {row.run: 3 for row in rows}
    parsed = parse_leaderboard(write_trec_eval(rows, topics), "board")
    assert parsed.layout is LeaderboardLayout.trec_eval
    assert [(r.run, r.measure, r.topic) for r in parsed.rows] == [(r.run, r.measure, r.topic) for r in rows]
    assert [r.value for r in parsed.rows] == [float(f"{r.value:.4f}") for r in rows]


def test_the_trec_eval_layout_is_what_trec_eval_prints() -> None:
    rows = [
        ScoreRow("bm25", "nDCG@10", "301", 0.25),
        ScoreRow("bm25", "AP", "301", 1 / 3),
        ScoreRow("bm25", "nDCG@10", MEAN_TOPIC, 0.25),
        ScoreRow("bm25", "AP", MEAN_TOPIC, 1 / 3),
        ScoreRow("bm25", "P(rel=2)@5", MEAN_TOPIC, 0.2),
    ]
    assert write_trec_eval(rows, {"bm25": 1}).splitlines() == [
        "ndcg_cut_10           \t301\t0.2500",
        "map                   \t301\t0.3333",
        "runid                 \tall\tbm25",
        "num_q                 \tall\t1",
        "ndcg_cut_10           \tall\t0.2500",
        "map                   \tall\t0.3333",
        "P(rel=2)@5            \tall\t0.2000",
    ]


@pytest.mark.parametrize(
    ("studio", "trec_eval"),
    [
        ("nDCG@10", "ndcg_cut_10"),
        ("nDCG", "ndcg"),
        ("P@5", "P_5"),
        ("R@100", "recall_100"),
        ("AP", "map"),
        ("AP@100", "map_cut_100"),
        ("RR", "recip_rank"),
        ("Rprec", "Rprec"),
    ],
)
def test_measure_names_map_both_ways(studio: str, trec_eval: str) -> None:
    assert trec_eval_name(studio) == trec_eval
    assert studio_name(trec_eval) == studio


@given(st.integers(min_value=1, max_value=100_000), st.sampled_from(["nDCG", "P", "R", "AP"]))
def test_every_cutoff_maps_there_and_back(cutoff: int, family: str) -> None:
    studio = f"{family}@{cutoff}"
    assert trec_eval_name(studio) != studio
    assert studio_name(trec_eval_name(studio)) == studio


@pytest.mark.parametrize("name", ["P(rel=2)@10", "Judged@10", "RR@10", "bpref"])
def test_names_without_an_equivalent_stay_as_they_are(name: str) -> None:
    assert trec_eval_name(name) == name
    assert studio_name(name) == name


def test_trec_eval_outputs_of_several_runs_one_after_the_other_are_read_run_by_run() -> None:
    text = (
        "map                   \t1\t0.5000\nmap                   \t2\t0.2500\n"
        "runid                 \tall\trunA\nnum_q                 \tall\t2\nmap                   \tall\t0.3750\n"
        "map                   \t1\t0.1000\nrunid                 \tall\trunB\nmap                   \tall\t0.1000\n"
    )
    parsed = parse_leaderboard(text, "board")
    assert parsed.rows == [
        ScoreRow("runA", "AP", "1", 0.5),
        ScoreRow("runA", "AP", "2", 0.25),
        ScoreRow("runA", "AP", "all", 0.375),
        ScoreRow("runB", "AP", "1", 0.1),
        ScoreRow("runB", "AP", "all", 0.1),
    ]


def test_one_tools_output_without_a_run_name_is_the_callers_run() -> None:
    ir_measures_q = "1\tnDCG@10\t0.5\n2\tnDCG@10\t0.25\nall\tnDCG@10\t0.375\n"
    parsed = parse_leaderboard(ir_measures_q, "board", run="bm25")
    assert parsed.layout is LeaderboardLayout.ir_measures
    assert parsed.rows[-1] == ScoreRow("bm25", "nDCG@10", "all", 0.375)
    means_only = parse_leaderboard("nDCG@10\t0.375\nAP\t0.5\n", "board", run="bm25")
    assert means_only.rows == [ScoreRow("bm25", "nDCG@10", "all", 0.375), ScoreRow("bm25", "AP", "all", 0.5)]
    trec_eval_m = parse_leaderboard("map                   \tall\t0.2\n", "board", run="bm25")
    assert trec_eval_m.rows == [ScoreRow("bm25", "AP", "all", 0.2)]


def test_ir_measures_jsonl_and_the_studios_own_tables_are_read() -> None:
    jsonl = '{"query_id": "1", "measure": "AP", "value": 0.5}\n{"query_id": "all", "measure": "AP", "value": 0.5}\n'
    assert parse_leaderboard(jsonl, "b", run="x").rows == [
        ScoreRow("x", "AP", "1", 0.5),
        ScoreRow("x", "AP", "all", 0.5),
    ]
    table = [{"run": "a", "measure": "AP", "value": 0.5, "topics": 2}]
    parsed = parse_leaderboard(json.dumps(table, indent=2), "b")
    assert (parsed.layout, parsed.rows) == (LeaderboardLayout.json, [ScoreRow("a", "AP", "all", 0.5)])
    tsv = "run\tmeasure\ttopic\tvalue\ttopics\na\tAP\t1\t0.5\t1\na\tAP\tall\t0.5\t1\n"
    assert parse_leaderboard(tsv, "b").layout is LeaderboardLayout.tsv
    assert parse_leaderboard(tsv.replace("\t", ","), "b").rows[0] == ScoreRow("a", "AP", "1", 0.5)


@pytest.mark.parametrize(
    ("text", "layout"),
    [
        ("a\tAP\t1\t0.5\n", LeaderboardLayout.tot),
        ("a\t1\tAP\t0.5\n", LeaderboardLayout.ir_measures),
        ("a\tall\tAP\t0.5\n", LeaderboardLayout.ir_measures),
        ("AP\t1\t0.5\n", LeaderboardLayout.trec_eval),
        ("1\tAP\t0.5\n", LeaderboardLayout.ir_measures),
        # A topic named like a measure: the means' `all` decides (a property test found it).
        ("a\tAP\tRR\t0.5\na\tall\tRR\t0.5\n", LeaderboardLayout.ir_measures),
        ("a\tRR\tAP\t0.5\na\tRR\tall\t0.5\n", LeaderboardLayout.tot),
        # A run named with a bracket is not JSON for it (a property test found `{`).
        ("{\tall\tnDCG@10\t0.5\n", LeaderboardLayout.ir_measures),
        ("[x\tnDCG@10\tall\t0.5\n", LeaderboardLayout.tot),
        ('{"run": "a", "measure": "AP", "topic": "all", "value": 0.5}\n', LeaderboardLayout.jsonl),
        ('[{"run": "a", "measure": "AP", "topic": "all", "value": 0.5}]', LeaderboardLayout.json),
    ],
)
def test_layouts_are_told_by_their_content(text: str, layout: LeaderboardLayout) -> None:
    assert detect_layout(text, "b") is layout


def test_a_layout_that_cannot_be_told_asks_for_it() -> None:
    with pytest.raises(InputError, match="give --as"):
        detect_layout("x\ty\tz\n", "b")
    assert parse_leaderboard("x\ty\t0.5\n", "b", LeaderboardLayout.trec_eval).rows == [ScoreRow("run", "x", "y", 0.5)]


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("a\tAP\tall\t0.5\na\tAP\tall\tnan\n", 2, "not a number|finite"),
        ("a\tAP\tall\t0.5\na\tAP\tall\t1_0\n", 2, "underscore|not a number"),
        ("a\tAP\tall\t0.5\na\tAP\tall\t0.6\n", 2, r"given twice \(first on line 1\)"),
        ("a\tAP\tall\t0.5\na\tAP\tall\n", 2, "expected 4 columns"),
        ("a\tAP\tall\t0.5\n\x1b[31m\tAP\tall\t0.6\n", 2, "run name"),
    ],
)
def test_refusals_name_the_line(text: str, line: int, reason: str) -> None:
    with pytest.raises(InputError) as refused:
        parse_leaderboard(text, "board", LeaderboardLayout.tot)
    assert (refused.value.file, refused.value.line) == ("board", line)
    assert re.search(reason, refused.value.reason)


def test_latex_is_a_booktabs_table_with_the_best_of_each_measure_in_bold_and_names_escaped() -> None:
    rows = [
        ScoreRow("bm25_{k1}", "nDCG@10", MEAN_TOPIC, 0.41234),
        ScoreRow("bm25_{k1}", "AP", MEAN_TOPIC, 0.3),
        ScoreRow("50%&$#~^\\", "nDCG@10", MEAN_TOPIC, 0.5),
        ScoreRow("50%&$#~^\\", "AP", MEAN_TOPIC, 0.3),
        ScoreRow("50%&$#~^\\", "AP", "7", 0.9),  # a topic's value is no mean: not in the table
    ]
    assert write_latex(rows).splitlines() == [
        r"% \usepackage{booktabs}",
        r"\begin{tabular}{lrr}",
        r"\toprule",
        r"Run & nDCG@10 & AP \\",
        r"\midrule",
        r"50\%\&\$\#\textasciitilde{}\textasciicircum{}\textbackslash{} & \textbf{0.5000} & \textbf{0.3000} \\",
        r"bm25\_\{k1\} & 0.4123 & \textbf{0.3000} \\",
        r"\bottomrule",
        r"\end{tabular}",
    ]


def test_latex_escapes_every_special_character_once() -> None:
    assert latex_escaped("a_b") == r"a\_b"
    assert latex_escaped("\\_") == r"\textbackslash{}\_"


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('{"run": "a", "measure": "AP"\n', 1),
        ('{"run": "a", "measure": "AP", "topic": "all", "value": 0.5}\n{"run\n', 2),
    ],
)
def test_a_broken_jsonl_file_is_still_read_as_jsonl_and_refused_at_its_line(text: str, line: int) -> None:
    with pytest.raises(InputError) as refused:
        parse_leaderboard(text, "board")
    assert (refused.value.file, refused.value.line) == ("board", line)
    assert "JSON" in refused.value.reason
