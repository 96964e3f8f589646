"""Partial human audits: samples, gold labels, budgets, estimates and their simulation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from studio.domain.names import check_name
from studio.domain.rows import AuditPair, AuditProgress, AuditRow, Estimate
from studio.services.audit import estimates as audit_estimates
from studio.services.audit import gold as audit_gold
from studio.services.audit import planner as audit_planner
from studio.services.audit import samples as audit_samples
from studio.services.audit import simulation as audit_simulation
from studio.services.facade.base import PathLike, ProjectBase


class AuditsMixin(ProjectBase):
    """Audits of an LLM label set against a sample of gold labels."""

    def plan_audit(
        self,
        qrels: str,
        *,
        name: str,
        budget: int,
        design: str,
        strata: str | None = None,
        seed: int = 0,
        pilot: str | None = None,
    ) -> dict[str, Any]:
        """Draw a sample of `qrels`' pool (whole topics, pairs, or stratified pairs) with each unit's
        inclusion probability; its gold labels become the human label set `name`."""
        check_name(name, "audit")
        return audit_samples.plan_audit(
            self.db, qrels, name=name, budget=budget, design=design, strata=strata, seed=seed, pilot=pilot
        )

    def import_audit(self, audit: str, file: PathLike) -> dict[str, Any]:
        """Gold labels made elsewhere for the audit's sample (a pair outside it refuses the file)."""
        done = audit_gold.import_gold(self.db, audit, Path(file))
        self.writes.written([audit])
        return done

    def audits(self) -> list[AuditRow]:
        """Every audit with its design and how far its sample is graded."""
        return audit_gold.list_audits(self.db)

    def audit_budget(
        self, qrels: str, pilot: str, width: float, *, measure: str = "nDCG@10", strata: str = "grade"
    ) -> dict[str, Any]:
        """The sample each design needs for a 95% interval `width` wide, from the pilot's variances,
        and the Neyman allocation over strata."""
        return audit_planner.budget_plan(self.engine, qrels, pilot, width, measure=measure, strata=strata)

    def audit_pairs(self, name: str, *, remaining: bool = False) -> list[AuditPair]:
        """The audit's sampled pairs in walk order with stratum, inclusion probability and gold grade."""
        return audit_gold.sample_pairs(self.db, name, remaining=remaining)

    def audit(self, name: str) -> AuditProgress:
        """An audit's design and progress (pairs graded of the sample, per stratum)."""
        return audit_gold.show_audit(self.db, name)

    def estimate(
        self,
        qrels: str,
        gold: str,
        measure: str = "nDCG@10",
        *,
        design: str = "topics",
        level: float = 0.95,
        tuned: bool = False,
        estimator: str | None = None,
        llm_relevant: float | None = None,
    ) -> Estimate:
        """Each run's measure under full human judging, estimated from the LLM label set `qrels` and
        the partial gold set `gold` (prediction-powered), with intervals, settled run pairs and τ.
        `estimator`: cross-fit (default), ppi, ppi++ or gold; `llm_relevant`: the LLM set's own
        relevance level for binary measures."""
        return audit_estimates.estimate(
            self.engine,
            qrels,
            gold,
            measure,
            design=design,
            level=level,
            tuned=tuned,
            estimator=estimator,
            llm_relevant=llm_relevant,
        )

    def simulate_audit(
        self,
        ref: str,
        qrels: str,
        *,
        budget: int,
        design: str = "topics",
        trials: int = 1000,
        measure: str = "nDCG@10",
        seed: int = 0,
        level: float = 0.95,
        tuned: bool = False,
        estimator: str | None = None,
        llm_relevant: float | None = None,
    ) -> dict[str, Any]:
        """Coverage and width of the estimates from `trials` random audits of `budget` units, `ref`
        taken as the truth."""
        return audit_simulation.simulate(
            self.engine,
            ref,
            qrels,
            budget=budget,
            design=design,
            trials=trials,
            measure=measure,
            seed=seed,
            level=level,
            tuned=tuned,
            estimator=estimator,
            llm_relevant=llm_relevant,
        )
