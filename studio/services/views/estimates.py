"""What the Leaderboard screen and the report show of a partial audit: the estimated leaderboard
with its intervals and settled run pairs, and the calibration curve of a calibrated label set."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from studio.domain.errors import StudioError
from studio.services.project import Project


@dataclass(frozen=True)
class EstimateView:
    """The leaderboard full human judging would give, estimated from `qrels` and the gold set."""

    qrels: str
    gold: str
    measure: str
    covers: str = ""
    design: str = "topics"
    gold_units: int = 0
    units: int = 0
    runs: list[dict[str, Any]] = field(default_factory=list)  # estimate, low, high, llm, gold_low, gold_high
    run_pairs: list[dict[str, Any]] = field(default_factory=list)  # difference, low, high, settled
    settled: int = 0
    pairs: int = 0
    kendall_tau_vs_llm: float | None = None
    error: str | None = None  # why there is no estimate (too few gold units, a measure the design refuses)

    def headline(self) -> str:
        if self.error is not None:
            return f"No estimate: {self.error}"
        tau = "–" if self.kendall_tau_vs_llm is None else f"{self.kendall_tau_vs_llm:.3f}"
        return (
            f"{self.gold_units} of {self.units} {self.design} audited · {self.settled} of {self.pairs} run "
            f"orderings settled · τ vs {self.qrels} alone {tau}. {self.covers}"
        )


def estimate_view(project: Project, qrels: str, gold: str, measure: str) -> EstimateView:
    """The estimate, or a view that says why there is none."""
    try:
        found = project.estimate(qrels, gold, measure)
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


@dataclass(frozen=True)
class CalibrationView:
    """A calibrated label set: how the LLM's values map to people's grades, and what it gained."""

    name: str
    source: str
    gold: str
    method: str
    figures: dict[str, Any]
    curve: list[dict[str, Any]]


def calibration_view(project: Project, label_set: str) -> CalibrationView | None:
    """The calibration of `label_set` (a calibrated set, or the newest one made from it), if any."""
    made = project.calibrations()
    found = [c for c in made if c["name"] == label_set] or [c for c in made if c["source"] == label_set]
    if not found:
        return None
    chosen = found[-1]
    return CalibrationView(
        chosen["name"], chosen["source"], chosen["gold"], chosen["method"], chosen["figures"], chosen["curve"]
    )
