"""Each label set on its own scale: a binary (0/1) judge's leaderboard at its own relevance level
beside people's graded labels at theirs, in `correlation` and `agreement`, and the warning when a
label set's grades never reach the level it is read at (correlate, agree, eval).

Oracles: trec_eval's C code (pytrec_eval with its `relevance_level`) on the binary set and the
graded one as dicts; scikit-learn's κ on the pairs binarised at each side's threshold.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import pytrec_eval
from evaluation_builders import Collection, Qrels, Run, shared_pairs, write_qrels
from sklearn.metrics import cohen_kappa_score

from studio import Project
from studio.domain.errors import UsageError
from studio.domain.specs import AgreementSpec, AuditSimulationSpec

TOLERANCE = 1e-12
BINARY = "binary"
# Our measure at people's level 2 -> (pytrec_eval request, its result key).
MEASURES = {"P(rel=2)@10": ("P.10", "P_10"), "AP(rel=2)": ("map", "map"), "Rprec(rel=2)": ("Rprec", "Rprec")}


def binarised(llm: Qrels) -> Qrels:
    """A 0/1 judge: the LLM set's grades ≥ 2 as 1, the rest 0 (its highest grade is 1)."""
    return {q: {d: int(g >= 2) for d, g in docs.items()} for q, docs in llm.items()}


@pytest.fixture
def with_binary(project: Project, collection: Collection, tmp_path: Path) -> Project:
    _, _, llm = collection
    project.import_qrels(write_qrels(tmp_path / "binary.txt", binarised(llm)), name=BINARY, kind="llm")
    return project


def trec_eval_board(runs: dict[str, Run], qrels: Qrels, request: str, key: str, level: int) -> dict[str, float]:
    """trec_eval's summary line per run at relevance level `level` (trec_eval -l)."""
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {request}, relevance_level=level)
    board = {}
    for name, run in runs.items():
        values = [v[key] for v in evaluator.evaluate(run).values()]
        board[name] = sum(values) / len(values) if values else 0.0
    return board


@pytest.mark.parametrize("measure", sorted(MEASURES))
def test_the_compared_sets_leaderboard_is_trec_evals_at_its_own_level(
    with_binary: Project, collection: Collection, measure: str
) -> None:
    runs, human, llm = collection
    request, key = MEASURES[measure]
    result = with_binary.correlation("human", BINARY, measure, llm_relevant=1)
    got_ref = {row["run"]: row["ref"] for row in result["leaderboard"]}
    got_binary = {row["run"]: row["qrels"] for row in result["leaderboard"]}
    want_ref = trec_eval_board(runs, human, request, key, level=2)
    want_binary = trec_eval_board(runs, binarised(llm), request, key, level=1)
    assert got_ref == pytest.approx(want_ref, abs=TOLERANCE, rel=0)
    assert got_binary == pytest.approx(want_binary, abs=TOLERANCE, rel=0)
    assert any(value > 0 for value in got_binary.values())  # the level made a difference
    assert result["levels"] == {"ref": 2.0, "qrels": 1.0}
    assert result["warnings"] == []


def test_at_the_measures_level_a_binary_set_counts_nothing_and_says_so(with_binary: Project) -> None:
    result = with_binary.correlation("human", BINARY, "P(rel=2)@10")
    assert {row["qrels"] for row in result["leaderboard"]} == {0.0}
    assert result["levels"] == {"ref": 2.0, "qrels": 2.0}
    assert len(result["warnings"]) == 1
    assert result["warnings"][0].startswith(f"{BINARY}'s grades reach at most 1: at relevance level 2")
    assert "--llm-relevant 1" in result["warnings"][0]


def test_the_live_correlation_takes_the_level_too(with_binary: Project) -> None:
    full = with_binary.correlation("human", BINARY, "AP(rel=2)", llm_relevant=1)
    live = with_binary.correlation("human", BINARY, "AP(rel=2)", llm_relevant=1, details=False)
    assert live["kendall_tau"] == full["kendall_tau"] and live["levels"] == full["levels"]


def test_a_level_changes_nothing_for_a_measure_of_gains(with_binary: Project) -> None:
    plain = with_binary.correlation("human", BINARY, "nDCG@10")
    leveled = with_binary.correlation("human", BINARY, "nDCG@10", llm_relevant=1)
    assert leveled == plain and plain["levels"] is None and plain["warnings"] == []


@pytest.mark.parametrize(
    ("label_set", "level", "warned"),
    [
        (BINARY, 0.5, False),
        (BINARY, 1, False),
        (BINARY, 1.5, True),
        (BINARY, 2, True),
        ("human", 3, False),
        ("human", 4, True),
    ],
)
def test_eval_warns_exactly_when_the_highest_grade_is_below_the_level(
    with_binary: Project, label_set: str, level: float, warned: bool
) -> None:
    measure = f"P(rel={level:g})@10"
    warnings = with_binary.level_warnings(label_set, [measure, "nDCG@10"])
    assert len(warnings) == int(warned)
    if warned:
        assert measure in warnings[0] and "rel=" in warnings[0]


@pytest.mark.parametrize(("ref_level", "level", "warned"), [(2, 1, []), (2, 2, [BINARY]), (4, 1, ["human"])])
def test_agreement_warns_of_a_side_whose_threshold_its_grades_never_reach(
    with_binary: Project, ref_level: float, level: float, warned: list[str]
) -> None:
    result = with_binary.agreement(AgreementSpec("human", BINARY, ref_threshold=ref_level, threshold=level))
    assert [warning.split("'s grades")[0] for warning in result["warnings"]] == warned


def test_agreements_binary_kappa_reads_each_side_at_its_own_threshold(
    with_binary: Project, collection: Collection
) -> None:
    _, human, llm = collection
    pairs = shared_pairs(human, binarised(llm))
    want = cohen_kappa_score([int(ref >= 2) for _, _, ref, _ in pairs], [int(grade >= 1) for *_, grade in pairs])
    result = with_binary.agreement(AgreementSpec("human", BINARY, ref_threshold=2, threshold=1))
    assert result["thresholds"] == {"ref": 2, "qrels": 1}
    assert result["kappa_binary"] == pytest.approx(want, abs=TOLERANCE)


def test_an_imported_leaderboard_has_no_level_of_its_own(with_binary: Project) -> None:
    with pytest.raises(UsageError, match="--llm-relevant"):
        with_binary.correlation("human", "leaderboard:any", "P@10", llm_relevant=1)


def test_an_audit_simulation_warns_of_the_compared_side_only_with_its_own_remedy(with_binary: Project) -> None:
    result = with_binary.simulate_audit(AuditSimulationSpec("human", BINARY, budget=3, trials=5, measure="P(rel=2)@10"))
    (warning,) = result["warnings"]
    assert warning.startswith(f"{BINARY}'s grades reach at most 1") and "--llm-relevant 1" in warning
    at_own_level = with_binary.simulate_audit(
        AuditSimulationSpec("human", BINARY, budget=3, trials=5, measure="P(rel=2)@10", llm_relevant=1)
    )
    assert at_own_level["warnings"] == []
