"""Run-pair decisions from a partial audit (`Project.estimate_decisions`) on the sample project:
p-values that agree with the estimate's own intervals, the t test they are (scipy), the
corrections (statsmodels), and the check against the full reference's decisions."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests  # type: ignore[import-untyped]  # ships no types

from studio.domain.pair_decisions import AuditPairDecision
from studio.domain.significance import SignificancePlan
from studio.domain.specs import DecisionTest, EstimateSpec
from studio.metrics.names import parse_measure
from studio.services.project import Project

GOLD_TOPICS = 8  # enough for the cross-fitted estimator to weigh the LLM labels
GOLD_PAIRS = 120
ALPHAS = (0.01, 0.05, 0.1, 0.2, 0.3)
LLM = "umbrela-smol"


def _partial_gold(project: Project, folder: Path, design: str = "topics", seed: int = 5) -> list[str]:
    """A gold label set `gold`: the human labels of random topics, or of random judged pairs."""
    human = project.engine.evaluator("human").labels
    qids = sorted(q for q, t in human.items() if t.judged)
    rng = np.random.default_rng(seed)
    if design == "topics":
        chosen = sorted(rng.choice(qids, size=GOLD_TOPICS, replace=False).tolist())
        lines = [(q, d, g) for q in chosen for d, g in sorted(human[q].judged.items())]
    else:
        every = [(q, d, g) for q in qids for d, g in sorted(human[q].judged.items())]
        lines = [every[i] for i in sorted(rng.choice(len(every), size=GOLD_PAIRS, replace=False).tolist())]
        chosen = sorted({q for q, _, _ in lines})
    path = folder / "gold.txt"
    path.write_text("".join(f"{q} 0 {d} {g:g}\n" for q, d, g in lines))
    project.import_qrels(path, name="gold")
    return chosen


def _by_pair(rows: list[AuditPairDecision]) -> dict[tuple[str, str], AuditPairDecision]:
    return {(r["run_a"], r["run_b"]): r for r in rows}


CASES = [("topics", "nDCG@10", "cross-fit"), ("topics", "P@10", "ppi"), ("topics", "nDCG@10", "gold")]
CASES += [("pairs", "nDCG@10", "cross-fit"), ("pairs", "P@10", "ppi++")]


@pytest.mark.parametrize(("design", "measure", "estimator"), CASES)
def test_p_below_alpha_exactly_when_the_estimates_interval_excludes_zero(
    design: str, measure: str, estimator: str, sample: Path, tmp_path: Path
) -> None:
    with Project.open(sample) as project:
        _partial_gold(project, tmp_path, design)
        for alpha in ALPHAS:
            spec = EstimateSpec(LLM, "gold", measure, design=design, estimator=estimator)
            decided = project.estimate_decisions(spec, DecisionTest(correction="none", alpha=alpha))
            settled = project.estimate(replace(spec, level=1 - alpha))["pairs"]
            by_pair = _by_pair(decided["pairs"])
            assert len(by_pair) == len(settled) == 15
            for row in settled:
                mine = by_pair[(row["run_a"], row["run_b"])]  # the same orientation: the higher estimate first
                assert mine["difference"] == pytest.approx(row["difference"])
                assert mine["significant"] == row["settled"], (alpha, row, mine)
                # The interval is the difference ± t_df quantile × se (scipy.stats as the oracle).
                low, high, difference, se, df = row["low"], row["high"], mine["difference"], mine["se"], mine["df"]
                assert low is not None and high is not None and difference is not None
                assert se is not None and df is not None
                half = stats.t.ppf(1 - alpha / 2, df) * se
                assert (high - low) / 2 == pytest.approx(half, rel=1e-9, abs=1e-12)
                assert mine["p_value"] == pytest.approx(2 * stats.t.sf(abs(difference) / se, df), rel=1e-9, abs=1e-300)


def test_gold_only_is_the_one_sample_t_test_of_the_audited_topics_with_the_finite_population_correction(
    sample: Path, tmp_path: Path
) -> None:
    with Project.open(sample) as project:
        chosen = _partial_gold(project, tmp_path)
        decided = _by_pair(
            project.estimate_decisions(EstimateSpec(LLM, "gold", estimator="gold"), DecisionTest("none"))["pairs"]
        )
        human = project.engine.evaluator("human")
        values = human.per_topic(parse_measure("nDCG@10"))[[human.row[q] for q in chosen]]
        topics = len(project.engine.evaluator(LLM).qids)
        runs = human.runs
    fpc = np.sqrt(1 - len(chosen) / topics)
    for (a, b), row in decided.items():
        found = stats.ttest_1samp(values[:, runs.index(a)] - values[:, runs.index(b)], 0.0)
        assert row["df"] == len(chosen) - 1
        assert row["p_value"] == pytest.approx(2 * stats.t.sf(abs(found.statistic) / fpc, len(chosen) - 1))


@pytest.mark.parametrize(("correction", "method"), [("holm", "holm"), ("bh", "fdr_bh"), ("bonferroni", "bonferroni")])
def test_corrections_are_statsmodels_multipletests(correction: str, method: str, sample: Path, tmp_path: Path) -> None:
    with Project.open(sample) as project:
        _partial_gold(project, tmp_path)
        rows = project.estimate_decisions(EstimateSpec(LLM, "gold"), DecisionTest(correction, 0.05))["pairs"]
    p = np.array([r["p_value"] for r in rows])
    rejected, adjusted, _, _ = multipletests(p, alpha=0.05, method=method)
    assert [r["p_adjusted"] for r in rows] == pytest.approx(adjusted.tolist())
    assert [r["significant"] for r in rows] == rejected.tolist()


def test_supported_pairs_are_those_the_full_reference_decides_alike(sample: Path, tmp_path: Path) -> None:
    with Project.open(sample) as project:
        _partial_gold(project, tmp_path)
        decided = project.estimate_decisions(EstimateSpec(LLM, "gold"), DecisionTest("bh", 0.1, "human"))
        reference = project.significance("human", plan=SignificancePlan("t", "bh", 0.1))
    theirs = {frozenset((p["run_a"], p["run_b"])): p for p in reference["pairs"]}
    for row in decided["pairs"]:
        pair = theirs[frozenset((row["run_a"], row["run_b"]))]
        same_way = pair["run_a"] == row["run_a"]
        assert pair["delta"] is not None
        assert row.get("ref_delta") == pytest.approx(pair["delta"] if same_way else -pair["delta"])
        assert row.get("ref_significant") == pair["significant"]
        expected = row["significant"] and pair["significant"] and same_way
        assert row.get("supported") == expected
    assert decided.get("ref_significant") == sum(p["significant"] for p in reference["pairs"])
    assert decided.get("supported") == sum(bool(r.get("supported")) for r in decided["pairs"])
    assert 0 < decided.get("supported", 0) <= decided["significant"]


def test_without_a_reference_no_comparison_is_made(sample: Path, tmp_path: Path) -> None:
    with Project.open(sample) as project:
        _partial_gold(project, tmp_path)
        decided = project.estimate_decisions(EstimateSpec(LLM, "gold"))
    assert "ref" not in decided and all("supported" not in row for row in decided["pairs"])
    assert decided["significant"] == sum(row["significant"] for row in decided["pairs"])


@pytest.mark.parametrize(
    ("asked", "message"),
    [
        (DecisionTest(correction="sidak"), "unknown correction"),
        (DecisionTest(alpha=1.0), "--alpha"),
        (EstimateSpec(LLM, "gold", estimator="x"), "unknown"),
    ],
)
def test_bad_arguments_are_refused(
    asked: EstimateSpec | DecisionTest, message: str, sample: Path, tmp_path: Path
) -> None:
    spec = asked if isinstance(asked, EstimateSpec) else EstimateSpec(LLM, "gold")
    test = asked if isinstance(asked, DecisionTest) else DecisionTest()
    with Project.open(sample) as project:
        _partial_gold(project, tmp_path)
        with pytest.raises(ValueError, match=message):
            project.estimate_decisions(spec, test)
