"""Robustness probes: a judge grades reference-non-relevant passages stuffed with the query and a
claim of relevance; the probe records every label before and after, through the call cache."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from studio import Project
from studio.cli.app import app
from studio.domain.errors import UsageError
from studio.judges.backend import ChatRequest, ChatResult
from studio.services.judging.config import JudgeConfig
from studio.services.judging.run import run_judge
from studio.services.meta.probes import PROBE_SENTENCE, perturb, probe_summary, run_probe, summarise


class Gullible:
    """Grades 3 whenever the passage claims to be relevant, else the passage's length bucket."""

    name = "gullible"
    model = "gullible"

    def __init__(self) -> None:
        self.calls = 0

    def params(self) -> dict[str, object]:
        return {}

    def complete(self, requests: Sequence[ChatRequest]) -> Iterator[tuple[int, ChatResult]]:
        for index, request in enumerate(requests):
            self.calls += 1
            text = request.messages[-1][1]
            grade = 3 if PROBE_SENTENCE in text else 0
            yield index, ChatResult(f"##final score: {grade}")

    def close(self) -> None:
        pass


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
        for _ in run_judge(project.db, config, backend=Gullible()):
            pass
        project.engine.forget_labels()
        judge = Gullible()
        *_, summary = run_probe(project.engine, "gull", limit=10, backend=judge)
        assert isinstance(summary, dict)
        assert summary["documents"] == 10 and judge.calls == 10 and summary["calls"] == 10
        assert summary["mean_original"] == 0.0 and summary["mean_perturbed"] == 3.0
        assert summary["moved_up"] == 1.0 and summary["became_relevant"] == 1.0
        again = Gullible()
        *_, second = run_probe(project.engine, "gull", limit=10, backend=again)
        assert again.calls == 0 and second["cache_hits"] == 10  # type: ignore[index]
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
    result = CliRunner().invoke(app, ["--db", str(simulated_sample), "probe", "--qrels", "sim", "--limit", "8",
                                      "-f", "json"])
    assert result.exit_code == 0, result.output
    [row] = json.loads(result.stdout)
    # The simulated judge reads no text at all: nothing moves.
    assert row["label_set"] == "sim" and row["documents"] == 8 and row["mean_shift"] == 0.0
