"""Significance tests between runs and the agreement of two label sets' decisions."""

from __future__ import annotations

from studio.domain.significance import Significance
from studio.services.facade.base import ProjectBase
from studio.services.significance import pairs


class SignificanceMixin(ProjectBase):
    """Which run differences a label set calls significant, and whether another agrees."""

    def significance(
        self,
        qrels: str,
        measure: str = "nDCG@10",
        *,
        test: str = "t",
        correction: str = "holm",
        alpha: float = 0.05,
        runs: list[str] | None = None,
        resamples: int = pairs.DEFAULT_RESAMPLES,
        seed: int = 0,
        ref: str | None = None,
    ) -> Significance:
        """Every pair of runs tested under `qrels` (t, randomization, bootstrap or Tukey's HSD),
        p-values corrected over the pairs; with `ref`, both label sets tested alike on the topics
        both label and their decisions compared pair by pair (see `studio significance`)."""
        return pairs.significance(
            self.engine,
            qrels,
            measure,
            test=test,
            correction=correction,
            alpha=alpha,
            runs=runs,
            resamples=resamples,
            seed=seed,
            ref=ref,
        )
