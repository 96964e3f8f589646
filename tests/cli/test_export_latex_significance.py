"""`studio export leaderboard --as latex --significance`: ranx's superscripts (golden file), each
value's letters the runs `studio significance` finds it significantly better than, and the
refusal of --significance with any other layout."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli.cli_helpers import assert_matches_golden, run_clirunner

ROW = re.compile(r"^([a-z]) & (\S+) & (.+) \\\\$")


def export(demo_project: Path, tmp_path: Path, *extra: str) -> str:
    args = ["--db", str(demo_project), "export", "leaderboard", "--qrels", "human", "-m", "nDCG@10", "-m", "AP"]
    result = run_clirunner([*args, "--as", "latex", "--significance", *extra, "--out", "-"], tmp_path)
    assert result.code == 0, result.stderr
    return result.stdout


def test_the_latex_table_with_superscripts_matches_its_golden_file(demo_project: Path, tmp_path: Path) -> None:
    assert_matches_golden("export_leaderboard_significance.tex", export(demo_project, tmp_path))


def test_each_values_letters_are_the_runs_it_significantly_beats(demo_project: Path, tmp_path: Path) -> None:
    table = export(demo_project, tmp_path, "--test", "t", "--correction", "holm", "--alpha", "0.05")
    rows = [found.groups() for line in table.splitlines() if (found := ROW.match(line))]
    letter_of = {run: letter for letter, run, _ in rows}
    for column, measure in enumerate(["nDCG@10", "AP"]):
        args = ["--db", str(demo_project), "significance", "--qrels", "human", "-m", measure, "--format", "json"]
        result = run_clirunner(args, tmp_path)
        beaten: dict[str, set[str]] = {}
        for pair in json.loads(result.stdout)["pairs"]:
            if pair["significant"]:
                beaten.setdefault(pair["run_a"], set()).add(letter_of[pair["run_b"]])
        assert any(beaten.values()), "the sample has significant differences to mark"
        for letter, run, cells in rows:
            value = cells.split(" & ")[column]
            shown = re.match(r"^(?:\\textbf\{)?[\d.]+\}?(?:\$\^\{([a-z]*)\}\$)?", value)
            assert shown is not None
            assert set(shown.group(1) or "") == beaten.get(run, set()), (measure, run, value)
            hidden = re.search(r"\\hphantom\{\$\^\{([a-z]*)\}\$\}", value)
            assert set(shown.group(1) or "") | set(hidden.group(1) if hidden else "") == set(letter_of.values()) - {
                letter
            }


@pytest.mark.parametrize("layout", ["json", "tsv", "trec_eval"])
def test_significance_with_another_layout_is_refused(demo_project: Path, tmp_path: Path, layout: str) -> None:
    args = ["--db", str(demo_project), "export", "leaderboard", "--qrels", "human", "--as", layout]
    result = run_clirunner([*args, "--significance", "--out", str(tmp_path / "board.out")], tmp_path)
    assert result.code == 2
    assert "--significance marks a LaTeX table" in result.stderr
    assert not (tmp_path / "board.out").exists()
