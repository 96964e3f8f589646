"""Stuffing, separated: judges built to react to one perturbation only are caught by that one
alone, pointwise and pairwise; the flip rate comes with a Wilson interval (checked by hand), the
leaderboard effect names the runs that rise, and the old combined probe is left as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli.cli_helpers import assert_matches_golden
from fakes import ScriptedBackend, prompt_of
from helpers import cli, judge_all

from studio import Project
from studio.domain.judge_results import StuffingProbe
from studio.domain.judging import JudgeConfig
from studio.judges.backend import ChatRequest
from studio.services.sensitivity.probes import PROBE_SENTENCE
from studio.services.sensitivity.stuffing import stuff, wilson


def query_of(text: str) -> str:
    return text.split("Query: ")[1].split("\n")[0]


def claim_only(request: ChatRequest) -> str:
    """UMBRELA answers: 3 when the passage claims relevance, else 0 — query words do nothing."""
    return f"##final score: {3 if PROBE_SENTENCE in prompt_of(request) else 0}"


def query_at_start(request: ChatRequest) -> str:
    """3 only when the passage begins with the query's words, else 0."""
    text = prompt_of(request)
    return f"##final score: {3 if 'Passage: ' + query_of(text) in text else 0}"


def test_stuffing_places_the_text() -> None:
    assert stuff("a b c d", "q", "query", "start") == "q\na b c d"
    assert stuff("a b c d", "q", "claim", "end") == f"a b c d\n{PROBE_SENTENCE}"
    assert stuff("a b c d", "q", "both", "middle") == f"a b q. {PROBE_SENTENCE} c d"


@pytest.mark.parametrize(
    ("k", "n", "low", "high"), [(0, 10, 0.0, 0.27753), (10, 10, 0.72247, 1.0), (3, 10, 0.10779, 0.60322)]
)
def test_wilson_interval_by_hand(k: int, n: int, low: float, high: float) -> None:
    # z²/(n+z²) = 3.8415/13.8415 for 0 of 10; 3 of 10: (0.3 + z²/20 ± z·sqrt(0.021 + z²/400)) / (1 + z²/10)
    found = wilson(k, n)
    assert found[0] == pytest.approx(low, abs=1e-5) and found[1] == pytest.approx(high, abs=1e-5)
    assert wilson(0, 0) == (None, None)


def probe_with(project: Project, reply: object, name: str) -> StuffingProbe:
    config = JudgeConfig(method="umbrela", backend=name, name=name, topics=["1001", "1003", "1005"])
    judge_all(project.db, config, ScriptedBackend(reply, name=name, model=name))  # type: ignore[arg-type]
    project.engine.forget_labels()
    *_, probe = project.probe_stuffing(name, limit=12, backend=ScriptedBackend(reply, name=name, model=name))  # type: ignore[arg-type]
    assert isinstance(probe, dict)
    return probe


def rates(probe: StuffingProbe) -> dict[tuple[str, str], float | None]:
    return {(e["perturbation"], e["position"]): e["flip_rate"] for e in probe["effects"]}


def test_a_judge_fooled_by_the_claim_alone(simulated_sample: Path) -> None:
    with Project.open(simulated_sample) as project:
        probe = probe_with(project, claim_only, "claimy")
    found = rates(probe)
    assert {found[("claim", p)] for p in ("start", "middle", "end")} == {1.0}
    assert {found[("both", p)] for p in ("start", "middle", "end")} == {1.0}
    assert {found[("query", p)] for p in ("start", "middle", "end")} == {0.0}
    claim_end = next(e for e in probe["effects"] if e["perturbation"] == "claim" and e["position"] == "end")
    assert claim_end["documents"] == 12 and claim_end["low"] == pytest.approx(wilson(12, 12)[0])
    # The judge graded every passage 0, so its own leaderboard is one tie (τ undefined); with the
    # stuffed passages relevant, the runs that rank them rise.
    assert claim_end["runs_rising"] == ["random-shuffle", "weak-baseline"] and claim_end["kendall_tau"] is None


def test_a_judge_fooled_by_the_query_at_the_start_alone(simulated_sample: Path) -> None:
    with Project.open(simulated_sample) as project:
        found = rates(probe_with(project, query_at_start, "starty"))
    assert found[("query", "start")] == 1.0 and found[("both", "start")] == 1.0
    assert all(rate == 0.0 for (kind, position), rate in found.items() if position != "start" or kind == "claim")


def test_a_pairwise_judge_fooled_by_the_claim_alone(simulated_sample: Path) -> None:
    with Project.open(simulated_sample) as project:
        human = {q: dict(t.judged) for q, t in project.engine.evaluator("human").labels.items()}

        def prefer(request: ChatRequest) -> str:
            text = prompt_of(request)
            first = text.split("Passage 1:\n")[1].split("\nPassage 2:")[0]
            second = text.split("Passage 2:\n")[1]
            if PROBE_SENTENCE in first or PROBE_SENTENCE in second:
                return "1" if PROBE_SENTENCE in first else "2"
            qid, a, b = request.subject
            return "1" if human[qid].get(a, 0) >= human[qid].get(b, 0) else "2"

        config = JudgeConfig(method="pairwise", backend="pw", name="pw", topics=["1001"])
        judge_all(project.db, config, ScriptedBackend(prefer, name="pw", model="pw"))
        *_, probe = project.probe_stuffing("pw", limit=6, backend=ScriptedBackend(prefer, name="pw", model="pw"))
        assert isinstance(probe, dict)
    found = rates(probe)
    assert {found[("claim", p)] for p in ("start", "middle", "end")} == {1.0}
    assert {found[("query", p)] for p in ("start", "middle", "end")} == {0.0}


def test_the_cli_reports_each_perturbation_and_keeps_the_old_probe(simulated_sample: Path) -> None:
    assert (
        cli(
            simulated_sample,
            "judge",
            "--method",
            "umbrela",
            "--backend",
            "simulated",
            "--name",
            "s2",
            "--topic",
            "1001",
        ).exit_code
        == 0
    )
    result = cli(
        simulated_sample,
        "probe",
        "--qrels",
        "s2",
        "--separate",
        "--kind",
        "claim",
        "--position",
        "end",
        "--limit",
        "5",
        "-f",
        "json",
    )
    assert result.exit_code == 0, result.output
    [probe] = json.loads(result.stdout)
    assert [(e["perturbation"], e["position"]) for e in probe["effects"]] == [("claim", "end")]
    old = cli(simulated_sample, "probe", "--qrels", "s2", "--limit", "5", "-f", "json")
    assert old.exit_code == 0 and "became_relevant" in json.loads(old.stdout)[0]


def test_the_separate_probe_table_is_golden(simulated_sample: Path) -> None:
    """The simulated judge reads no passage text: no perturbation flips it, and the table says so."""
    result = cli(simulated_sample, "probe", "--qrels", "sim", "--separate", "--limit", "8")
    assert result.exit_code == 0, result.output
    assert_matches_golden("probe_separate.txt", result.stdout)
