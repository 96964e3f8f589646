"""What the Leaderboard screen and the report show of a partial audit: the estimated leaderboard
with its intervals and settled run pairs, and the calibration curve of a calibrated label set."""

from __future__ import annotations

from studio.domain.errors import StudioError
from studio.domain.specs import EstimateSpec
from studio.domain.views import CalibrationView, EstimateView
from studio.services.facade.core import ProjectCore


def estimate_view(project: ProjectCore, qrels: str, gold: str, measure: str) -> EstimateView:
    """The estimate, or a view that says why there is none."""
    try:
        found = project.estimate(EstimateSpec(qrels, gold, measure))
    except StudioError as error:
        return EstimateView(qrels, gold, measure, error=str(error))
    pairs = found["pairs"]
    return EstimateView(
        qrels,
        gold,
        found["measure"],
        covers=found["covers"],
        design=found["design"],
        gold_units=found["gold_units"],
        units=found["units"],
        runs=found["runs"],
        run_pairs=pairs,
        settled=sum(1 for pair in pairs if pair["settled"]),
        pairs=len(pairs),
        kendall_tau_vs_llm=found["kendall_tau_vs_llm"],
    )


def calibration_view(project: ProjectCore, label_set: str) -> CalibrationView | None:
    """The calibration of `label_set` (a calibrated set, or the newest one made from it), if any."""
    made = project.calibrations()
    found = [c for c in made if c["name"] == label_set] or [c for c in made if c["source"] == label_set]
    if not found:
        return None
    chosen = found[-1]
    return CalibrationView(
        chosen["name"], chosen["source"], chosen["gold"], chosen["method"], chosen["figures"], chosen["curve"]
    )
