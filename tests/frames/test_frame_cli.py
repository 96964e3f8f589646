"""What the commands say of their frame: JSON keeps `topics` and names the topics left out, a table
prints the frame under its title, stderr warns when topics were left out; and the topic options."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli.cli_helpers import assert_matches_golden, normalised
from evaluation_builders import trec_eval_means
from frames.conftest import Collection
from frames.frame_builders import COMMON, LLM_TOPICS, PEOPLE_TOPICS, RUNS, cut
from helpers import cli

LEFT_OUT_PEOPLE = [t for t in PEOPLE_TOPICS if t not in COMMON]
LEFT_OUT_LLM = [t for t in LLM_TOPICS if t not in COMMON]

# Every command that compares two label sets, as a user types it.
COMPARISONS = {
    "correlate": ["correlate", "--ref", "people", "--qrels", "llm"],
    "compare": ["compare", "--ref", "people", "--qrels", "llm", "--resamples", "50"],
    "agree": ["agree", "--ref", "people", "--qrels", "llm"],
    "significance": ["significance", "--ref", "people", "--qrels", "llm"],
    "disagreements": ["disagreements", "--ref", "people", "--qrels", "llm"],
}


@pytest.mark.parametrize("command", sorted(COMPARISONS))
def test_every_comparison_warns_of_the_topics_it_left_out_and_prints_its_frame(
    overlapping_db: Path, command: str
) -> None:
    result = cli(overlapping_db, *COMPARISONS[command])
    assert result.exit_code == 0, result.stderr
    assert f"{len(LEFT_OUT_LLM)} topics only 'llm' labels left out" in result.stderr
    assert f"{len(LEFT_OUT_PEOPLE)} topics only 'people' labels left out" in result.stderr
    assert f"on the {len(COMMON)} topics both people and llm label" in result.stdout


@pytest.mark.parametrize("command", ["correlate", "agree", "significance"])
def test_json_keeps_topics_and_names_the_topics_left_out(overlapping_db: Path, command: str) -> None:
    result = cli(overlapping_db, *COMPARISONS[command], "-f", "json")
    found = json.loads(result.stdout)
    assert found["topics"] == len(COMMON)
    assert found["frame"]["left_out"] == {"ref": LEFT_OUT_PEOPLE, "qrels": LEFT_OUT_LLM}
    assert found["frame"]["scope"] == "common" and found["frame"]["subset"] is None


def test_compare_json_rows_carry_their_frame(overlapping_db: Path) -> None:
    [row] = json.loads(cli(overlapping_db, *COMPARISONS["compare"], "-f", "json").stdout)
    assert row["topics"] == len(COMMON) and row["frame"]["left_out"]["qrels"] == LEFT_OUT_LLM
    tsv = cli(overlapping_db, *COMPARISONS["compare"], "-f", "tsv").stdout.splitlines()
    header, values = tsv[0].split("\t"), tsv[1].split("\t")
    assert dict(zip(header, values, strict=True))["qrels_topics_left_out"] == str(len(LEFT_OUT_LLM))


def test_topics_own_says_so_and_warns_of_nothing_left_out(overlapping_db: Path) -> None:
    result = cli(overlapping_db, *COMPARISONS["correlate"], "--topics", "own")
    assert "left out" not in result.stderr
    assert f"each side on its own topics: people {len(PEOPLE_TOPICS)}, llm {len(LLM_TOPICS)}" in result.stdout


def test_a_topic_subset_from_options_or_a_file(overlapping_db: Path, overlapping: Collection, tmp_path: Path) -> None:
    listed = tmp_path / "topics.tsv"
    listed.write_text(f"# the condition's topics\n{COMMON[0]}\tfirst query\n{COMMON[1]}\tsecond query\n")
    by_file = json.loads(cli(overlapping_db, *COMPARISONS["correlate"], "--topics-file", listed, "-f", "json").stdout)
    by_option = json.loads(
        cli(overlapping_db, *COMPARISONS["correlate"], "--topic", COMMON[0], "--topic", COMMON[1], "-f", "json").stdout
    )
    assert by_file == by_option
    assert by_file["frame"]["subset"] == COMMON[:2] and by_file["topics"] == 2
    rows = json.loads(
        cli(overlapping_db, "eval", "--qrels", "people", "-m", "AP", "--topics-file", listed, "-f", "json").stdout
    )
    expected = trec_eval_means(overlapping[0], cut(overlapping[1], COMMON[:2]), "AP")
    assert {row["run"]: row["value"] for row in rows} == pytest.approx(expected)


def test_a_topic_the_project_does_not_know_is_refused(overlapping_db: Path) -> None:
    for args in (COMPARISONS["correlate"], ["eval", "--qrels", "people"], COMPARISONS["significance"]):
        result = cli(overlapping_db, *args, "--topic", "t99")
        assert result.exit_code == 2
        assert "topic 't99' is not in the project" in result.stderr
        assert "Traceback" not in result.stderr


def test_a_topics_file_with_no_ids_is_refused_with_its_name(overlapping_db: Path, tmp_path: Path) -> None:
    empty = tmp_path / "none.txt"
    empty.write_text("# nothing but a comment\n")
    result = cli(overlapping_db, *COMPARISONS["agree"], "--topics-file", empty)
    assert result.exit_code == 2 and str(empty) in result.stderr and "no topic ids" in result.stderr


def test_umbrelas_table_two_from_one_correlate_call(overlapping_db: Path) -> None:
    """Run-level, per-topic and topic/run τ, and τ on a third and two thirds of the common topics
    (mean [95% interval] of 100 draws), a row per measure."""
    args = [*COMPARISONS["correlate"], "-m", "nDCG@10", "-m", "AP", "-m", "P@5"]
    table = cli(overlapping_db, *args)
    assert_matches_golden("correlate_table_two.txt", normalised(table.stdout, overlapping_db))
    rows = json.loads(cli(overlapping_db, *args, "-f", "json").stdout)
    assert [row["measure"] for row in rows] == ["nDCG@10", "AP", "P@5"]
    single = json.loads(cli(overlapping_db, *COMPARISONS["correlate"], "-m", "AP", "-f", "json").stdout)
    assert rows[1] == single
    for sub in single["subsampling"]:
        assert sub["draws"] == 100 and sub["level"] == 0.95
        assert sub["low"] <= sub["mean"] <= sub["high"]
    tsv = cli(overlapping_db, *args, "-f", "tsv").stdout.splitlines()
    assert tsv[0].split("\t")[:6] == ["measure", "runs", "topics", "run-level τ", "per-topic τ", "topic/run τ"]
    assert len(tsv) == 4 and all(line.split("\t")[1] == str(len(RUNS)) for line in tsv[1:])
