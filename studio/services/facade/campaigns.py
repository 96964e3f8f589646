"""Assessment campaigns with the LLM in the loop: manual, filtering and post-editing conditions."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from studio.domain.names import check_name
from studio.services.facade.base import PathLike, ProjectBase
from studio.services.facade.lazy import lazy_module

if TYPE_CHECKING:
    from studio.domain import campaigns as campaign_types
    from studio.domain.campaign_report import CampaignReport
    from studio.domain.campaigns import CampaignImport, CampaignPair, CampaignPlan, CampaignProgress, CampaignRow
    from studio.services.campaigns import grades as campaign_grades
    from studio.services.campaigns import plan as campaign_plan
    from studio.services.campaigns import progress as campaign_progress
    from studio.services.campaigns import report as campaign_report
else:
    campaign_types = lazy_module("studio.domain.campaigns")
    campaign_grades = lazy_module("studio.services.campaigns.grades")
    campaign_plan = lazy_module("studio.services.campaigns.plan")
    campaign_progress = lazy_module("studio.services.campaigns.progress")
    campaign_report = lazy_module("studio.services.campaigns.report")


class CampaignsMixin(ProjectBase):
    """Campaigns: people judging an LLM label set's pool under three conditions."""

    def plan_campaign(
        self,
        name: str,
        *,
        llm: str,
        pool: str,
        manual: str | None = None,
        filtering: str | None = None,
        post_editing: str | None = None,
        llm_relevant: float = 1.0,
        assessors: list[str] | None = None,
        overlap: float = 0.0,
        seed: int = 0,
        recall_sample: int = 0,
    ) -> CampaignPlan:
        """A campaign of the pool `pool` (`qrels:NAME` or `runs:K`) judged under each condition on
        its own topics (each a file of qids or a count drawn with the seed); its grades become the
        human label set `name`, which takes no other write. `recall_sample`: that many dropped pairs
        graded blind too (into `name`-recall), to estimate what filtering hides."""
        spec = campaign_plan.CampaignSpec(
            name=check_name(name, "campaign"),
            llm=llm,
            pool=pool,
            topics={
                campaign_types.Condition.manual: manual,
                campaign_types.Condition.filtering: filtering,
                campaign_types.Condition.post_editing: post_editing,
            },
            llm_relevant=llm_relevant,
            assessors=tuple(check_name(a, "assessor") for a in assessors or ()),
            overlap=overlap,
            seed=seed,
            recall_sample=recall_sample,
        )
        try:
            return campaign_plan.plan_campaign(self.db, spec)
        finally:
            self.engine.forget_followers()  # its label set takes no write but the campaign's

    def campaigns(self) -> list[CampaignRow]:
        """Every campaign with how far it is judged."""
        return campaign_progress.list_campaigns(self.db)

    def campaign(self, name: str) -> CampaignProgress:
        """A campaign's progress per condition and per assessor."""
        return campaign_progress.show_campaign(self.db, name)

    def campaign_pairs(self, name: str, *, assessor: str | None = None, remaining: bool = False) -> list[CampaignPair]:
        """The pairs the campaign puts before people, in walk order, with the LLM's grade only where
        the condition shows it."""
        if assessor is not None:
            assessor = check_name(assessor, "assessor")
        return campaign_progress.campaign_pairs(self.db, name, assessor=assessor, remaining=remaining)

    def import_campaign(self, name: str, file: PathLike, *, assessor: str) -> CampaignImport:
        """`assessor`'s grades of the campaign's shown pairs from a qrels file (a pair it does not
        show refuses the file)."""
        done = campaign_grades.import_grades(self.db, name, Path(file), assessor=check_name(assessor, "assessor"))
        self.writes.written(
            [n for n in (name, f"{name}{campaign_types.RECALL_SUFFIX}") if n in self.engine.owned_sets()]
        )
        return done

    def campaign_report(
        self, name: str, measures: list[str] | None = None, *, seed: int = 0, live: bool = False
    ) -> CampaignReport:
        """What the LLM's help cost and changed: Table 1, the confusion, τ per condition, the
        anchoring effect and the assessors' agreement, all from the LLM grades the campaign kept
        (`live`: τ and the confusion from the LLM set as it is today); `llm_state` says which and
        what changed in the set since planning."""
        return campaign_report.report(self.engine, name, measures or ["nDCG@10"], seed=seed, live=live)
