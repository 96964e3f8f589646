"""The closed sets of names (studio.domain.choices) match what the code behind them knows, and the
command line refuses anything else with exit code 2 before it touches the project."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli.cli_helpers import run_clirunner

from studio.domain.choices import (
    BackendName,
    DerivedScore,
    Importance,
    ItemKind,
    JudgeMethod,
    ModelBackend,
    ScreenName,
    SensitivityMethod,
)
from studio.domain.models import IMPORTANCE_LEVELS, ITEM_KINDS
from studio.judges.methods import METHODS
from studio.services.rubric.derive import SCORES


def test_judge_methods_are_the_prompted_methods_and_the_embedding_judge() -> None:
    # The embedding judge has no prompt: it lives in services.judging.embeddings, not in METHODS.
    assert set(JudgeMethod) - {JudgeMethod.embedding} == set(METHODS)


def test_derived_scores_are_the_ones_derive_computes() -> None:
    assert set(DerivedScore) == set(SCORES)


def test_the_smaller_sets_are_parts_of_the_larger() -> None:
    assert set(SensitivityMethod) <= set(JudgeMethod)
    assert set(ModelBackend) <= set(BackendName)
    assert tuple(ItemKind) == ITEM_KINDS and tuple(Importance) == IMPORTANCE_LEVELS


def test_the_command_line_screens_are_the_studio_modes() -> None:
    from studio.tui.app import StudioApp

    assert set(ScreenName) == set(StudioApp.MODES)


BAD_CHOICES = {
    "judge --method": ["judge", "--method", "umbrella"],
    "judge --backend": ["judge", "--backend", "ollama"],
    "derive --score": ["derive", "--from", "x", "--bank", "b", "--score", "exam-best"],
    "sensitivity --method": ["sensitivity", "--prompt", "binary", "--method", "exam-question"],
    "sensitivity --backend": ["sensitivity", "--prompt", "binary", "--backend", "ollama"],
    "bank add --kind": ["bank", "add", "nuggets", "1001", "text", "--kind", "fact"],
    "bank add --importance": ["bank", "add", "nuggets", "1001", "text", "--importance", "high"],
    "bank weight": ["bank", "weight", "nuggets", "1001/x", "high"],
    "bank generate --kind": ["bank", "generate", "gen", "--kind", "fact"],
    "bank generate --backend": ["bank", "generate", "gen", "--backend", "simulated"],
    "bank nuggetize --backend": ["bank", "nuggetize", "gen", "--backend", "simulated"],
    "import bank --kind": ["import", "bank", "items.tsv", "--kind", "fact"],
    "tui --screen": ["tui", "--screen", "reviews"],
}


@pytest.mark.parametrize("where", BAD_CHOICES)
def test_a_value_outside_the_choices_exits_2_and_names_them(where: str, tmp_path: Path) -> None:
    project = tmp_path / "p.duckdb"
    result = run_clirunner(["--db", str(project), *BAD_CHOICES[where]], tmp_path)
    assert result.code == 2, result.stdout
    assert "is not one of" in result.stderr
    assert not project.exists()  # refused while parsing, before the project is opened
