"""Robustness probes: a judge grades reference-non-relevant passages stuffed with the query and a
claim of relevance; the probe records every label before and after, through the call cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakes import ScriptedBackend, prompt_of
from helpers import cli, judge_all

from studio import Project
from studio.domain.errors import UsageError
from studio.domain.judging import JudgeConfig
from studio.services.sensitivity.probes import PROBE_SENTENCE, perturb, probe_summary, run_probe, summarise


def gullible() -> ScriptedBackend:
    """Grades 3 whenever the passage claims to be relevant, else 0."""
    return ScriptedBackend(
        lambda request: f"##final score: {3 if PROBE_SENTENCE in prompt_of(request) else 0}",
        name="gullible",
        model="gullible",
    )


def test_perturbation_appends_the_query_and_the_claim() -> None:
    assert perturb("Some text.", "jaguar speed") == f"Some text.\njaguar speed. {PROBE_SENTENCE}"


def test_summary_counts_by_hand() -> None:
    summary = summarise("x", "umbrela", "m", [(0.0, 3.0), (1.0, 1.0), (0.0, 2.0), (2.0, 0.0), (0.0, None)])
    assert summary["documents"] == 5 and summary["failures"] == 1
    assert summary["mean_original"] == 0.75 and summary["mean_perturbed"] == 1.5
    assert summary["mean_shift"] == 0.75
    assert summary["moved_up"] == 0.5  # 2 of 4 moved up
    assert summary["became_relevant"] == 0.5  # 0→3 and 0→2 crossed grade 2


def test_a_gullible_judge_is_caught_and_a_second_probe_costs_nothing(simulated_sample: Path) -> None:
    with Project.open(simulated_sample) as project:
        config = JudgeConfig(method="umbrela", backend="gullible", name="gull", topics=["1003", "1005"])
        judge_all(project.db, config, gullible())
        project.engine.forget_labels()
        judge = gullible()
        *_, summary = run_probe(project.engine, "gull", limit=10, backend=judge)
        assert isinstance(summary, dict)
        assert summary["documents"] == 10 and judge.calls == 10 and summary["calls"] == 10
        assert summary["mean_original"] == 0.0 and summary["mean_perturbed"] == 3.0
        assert summary["moved_up"] == 1.0 and summary["became_relevant"] == 1.0
        again = gullible()
        *_, second = run_probe(project.engine, "gull", limit=10, backend=again)
        assert isinstance(second, dict)
        assert again.calls == 0 and second["cache_hits"] == 10
        rows = project.db.cursor().execute("SELECT count(*) FROM probe_results").fetchone()
        assert rows == (20,)
        stored = probe_summary(project.db)
        assert [s["label_set"] for s in stored] == ["gull"] and stored[0]["became_relevant"] == 1.0
        # Only passages the reference calls non-relevant were probed.
        human = project.engine.evaluator("human").labels
        probed = project.db.cursor().execute("SELECT qid, docid FROM probe_results").fetchall()
        assert all(human[q].judged[d] == 0 for q, d in probed)


def test_probes_refuse_rubric_and_unknown_judges(simulated_sample: Path) -> None:
    with Project.open(simulated_sample) as project, pytest.raises(UsageError, match="not made by a judge"):
        list(run_probe(project.engine, "human"))


def test_cli_probes_the_simulated_judge(simulated_sample: Path) -> None:
    result = cli(simulated_sample, "probe", "--qrels", "sim", "--limit", "8", "-f", "json")
    assert result.exit_code == 0, result.output
    [row] = json.loads(result.stdout)
    # The simulated judge reads no text at all: nothing moves.
    assert row["label_set"] == "sim" and row["documents"] == 8 and row["mean_shift"] == 0.0
