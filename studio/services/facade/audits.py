"""Partial human audits: samples, gold labels, budgets, estimates and their simulation."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from studio.domain.names import check_name
from studio.domain.numbers import check_grade
from studio.services.facade.base import PathLike, ProjectBase
from studio.services.facade.lazy import lazy_function, lazy_module

if TYPE_CHECKING:
    from studio.domain.audit_designs import AuditSimulation, BudgetPlan, DesignRecommendation
    from studio.domain.audit_results import (
        Adjudication,
        AssessorAgreement,
        Assignment,
        AuditPlan,
        Conflict,
        GoldImport,
    )
    from studio.domain.pair_decisions import AuditDecisions
    from studio.domain.rows import AuditPair, AuditProgress, AuditRow, Estimate
    from studio.domain.specs import AuditDrawSpec, AuditSimulationSpec, DecisionTest, EstimateSpec
    from studio.services.audit import assessments as audit_assessments
    from studio.services.audit import assignment as audit_assignment
    from studio.services.audit import estimates as audit_estimates
    from studio.services.audit import gold as audit_gold
    from studio.services.audit import pair_decisions as audit_pair_decisions
    from studio.services.audit import planner as audit_planner
    from studio.services.audit import recommend as audit_recommend
    from studio.services.audit import samples as audit_samples
    from studio.services.audit import simulation as audit_simulation
    from studio.services.audit.assessor_agreement import assessor_agreement
else:
    DecisionTest = lazy_function("studio.domain.specs", "DecisionTest")
    audit_assessments = lazy_module("studio.services.audit.assessments")
    audit_assignment = lazy_module("studio.services.audit.assignment")
    audit_estimates = lazy_module("studio.services.audit.estimates")
    audit_gold = lazy_module("studio.services.audit.gold")
    audit_pair_decisions = lazy_module("studio.services.audit.pair_decisions")
    audit_planner = lazy_module("studio.services.audit.planner")
    audit_recommend = lazy_module("studio.services.audit.recommend")
    audit_samples = lazy_module("studio.services.audit.samples")
    audit_simulation = lazy_module("studio.services.audit.simulation")
    assessor_agreement = lazy_function("studio.services.audit.assessor_agreement", "assessor_agreement")


class AuditsMixin(ProjectBase):
    """Audits of an LLM label set against a sample of gold labels."""

    def plan_audit(self, spec: AuditDrawSpec) -> AuditPlan:
        """Draw a sample of the LLM label set's pool (whole topics, pairs, or stratified pairs) with
        each unit's inclusion probability; its gold labels become the human label set `spec.name`."""
        spec = replace(spec, name=check_name(spec.name, "audit"))
        try:
            return audit_samples.plan_audit(self.db, spec)
        finally:
            self.engine.forget_followers()  # its gold set takes no write but the audit's

    def import_audit(self, audit: str, file: PathLike, *, assessor: str | None = None) -> GoldImport:
        """Gold labels made elsewhere for the audit's sample (a pair outside it refuses the file);
        with `assessor`, that assessor's grades (of the pairs given to them, when assigned)."""
        if assessor is not None:
            assessor = check_name(assessor, "assessor")
        done = audit_gold.import_gold(self.db, audit, Path(file), assessor=assessor)
        self.writes.written([audit])
        return done

    def assign_audit(self, audit: str, assessors: list[str], *, overlap: float = 0.0, seed: int = 0) -> Assignment:
        """Split the audit's sample among `assessors`, a share `overlap` of its pairs given to two."""
        return audit_assignment.assign(self.db, audit, assessors, overlap=overlap, seed=seed)

    def audit_agreement(self, audit: str) -> AssessorAgreement:
        """The assessors' agreement on the pairs they share (κ per couple, α over all) and the
        conflicts not adjudicated yet."""
        return assessor_agreement(self.db, audit)

    def audit_conflicts(self, audit: str) -> list[Conflict]:
        """The pairs the audit's assessors grade differently, not adjudicated yet."""
        return audit_assessments.conflicts(self.db.cursor(), audit)

    def adjudicate(self, audit: str, qid: str, docid: str, grade: float, *, person: str | None = None) -> Adjudication:
        """The adjudicated grade of a pair of the audit becomes its gold grade (the assessors' stay recorded)."""
        if person is not None:
            person = check_name(person, "adjudicator")
        check_grade(grade)
        return audit_assessments.adjudicate(self.writes, audit, qid, docid, grade, person=person)

    def audits(self) -> list[AuditRow]:
        """Every audit with its design and how far its sample is graded."""
        return audit_gold.list_audits(self.db)

    def audit_budget(
        self, qrels: str, pilot: str, width: float, *, measure: str = "nDCG@10", strata: str = "grade"
    ) -> BudgetPlan:
        """The sample each design needs for a 95% interval `width` wide, from the pilot's variances
        (in assessor-hours too), and the Neyman allocation over strata."""
        return audit_planner.budget_plan(self.engine, qrels, pilot, width, measure=measure, strata=strata)

    def audit_pairs(self, name: str, *, remaining: bool = False, assessor: str | None = None) -> list[AuditPair]:
        """The audit's sampled pairs in walk order with stratum, inclusion probability and gold grade
        (`assessor`: only the pairs given to that assessor)."""
        return audit_gold.sample_pairs(self.db, name, remaining=remaining, assessor=assessor)

    def audit(self, name: str) -> AuditProgress:
        """An audit's design and progress (pairs graded of the sample, per stratum)."""
        return audit_gold.show_audit(self.db, name)

    def estimate(self, spec: EstimateSpec) -> Estimate:
        """Each run's measure under full human judging, estimated from the LLM label set and the
        partial gold set of `spec` (prediction-powered), with intervals, settled run pairs and τ."""
        return audit_estimates.estimate(self.engine, spec)

    def estimate_decisions(self, spec: EstimateSpec, test: DecisionTest | None = None) -> AuditDecisions:
        """The run-pair decisions the estimate's audit already supports: each pair's difference
        from `estimate(spec)` tested against its interval's t distribution, corrected over the pairs
        (holm, bh, bonferroni or none); with `test.ref`, the full reference label set, whether its
        own decisions (`significance`) agree."""
        return audit_pair_decisions.audit_decisions(self.engine, spec, test or DecisionTest())

    def simulate_audit(self, spec: AuditSimulationSpec) -> AuditSimulation:
        """Coverage and width of the estimates from random audits of `spec.budget` units, the
        reference taken as the truth (`spec.pilot`: where `pairs-uncertainty` and `topics-neyman`
        take their calibration residuals and spreads; a design that is not uniform is set beside
        the uniform one)."""
        return audit_simulation.simulate(self.engine, spec)

    def recommend_audit_design(
        self,
        qrels: str,
        budget: int,
        *,
        pilot: str | None = None,
        measure: str = "nDCG@10",
        trials: int = 200,
        seed: int = 0,
    ) -> DesignRecommendation:
        """Every design simulated at `budget` pairs (against the pilot, else the LLM's own labels) and
        the one to draw: the narrowest that covers at least 0.93, else the best-covering, and why."""
        return audit_recommend.recommend_design(
            self.engine, qrels, budget, pilot=pilot, measure=measure, trials=trials, seed=seed
        )
