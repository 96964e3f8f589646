"""`Project`: the studio's Python API over one project file, and the only door of its front ends.

The CLI and the TUI import this module and the domain types, nothing else of the services: every
subject is a method here (`services/facade/` holds them, one module per subject), and so are the
screens' views and the sessions a person works in (Review, the blind audit, a campaign's walk, the
check of answers' verdicts). The
session classes, and the protocol they share, are named here so that the front ends can name the
objects they are handed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Self

from studio.domain.frames import EVERY_TOPIC, TopicChoice
from studio.domain.project_file import DEFAULT_WAIT_SECONDS, SampleSetAside
from studio.services.facade.core import ProjectCore
from studio.services.facade.lazy import lazy_function, lazy_module
from studio.services.locations import demo_project_path

if TYPE_CHECKING:
    from pathlib import Path

    from studio.domain.check_report import CheckReport
    from studio.domain.doctor_report import DoctorReport
    from studio.domain.prompt_study import StudyOptions
    from studio.domain.views import (
        BankView,
        CalibrationView,
        EstimateView,
        LeaderboardView,
        Overview,
        ProjectNames,
        ReviewFilters,
    )
    from studio.services.answers.session import AnswerSession
    from studio.services.audit.session import AuditSession
    from studio.services.campaigns.session import CampaignSession
    from studio.services.report.files import WrittenReport
    from studio.services.review.session import ReviewSession
    from studio.services.rubric.editing import BankEditor
    from studio.services.sample_project import build_sample_file, set_aside_sample
    from studio.services.session import InteractiveSession
    from studio.services.team.probe import TeamProbe
    from studio.services.team.probe import probe as probe_team
    from studio.services.views import bank as bank_views
    from studio.services.views import estimates as estimate_views
    from studio.services.views import overview as overview_views
    from studio.services.views.leaderboard import leaderboard_view
else:  # imported when first used (see services/facade/lazy.py)
    build_sample_file = lazy_function("studio.services.sample_project", "build_sample_file")
    set_aside_sample = lazy_function("studio.services.sample_project", "set_aside_sample")
    probe_team = lazy_function("studio.services.team.probe", "probe")
    bank_views = lazy_module("studio.services.views.bank")
    estimate_views = lazy_module("studio.services.views.estimates")
    overview_views = lazy_module("studio.services.views.overview")
    leaderboard_view = lazy_function("studio.services.views.leaderboard", "leaderboard_view")

__all__ = [
    "AnswerSession",
    "AuditSession",
    "BankEditor",
    "CampaignSession",
    "InteractiveSession",
    "Project",
    "ReviewFilters",
    "ReviewSession",
]

# The classes of the objects the front ends are handed, named here so that they can name them
# (`from studio.services.project import ReviewSession`), imported when first named: the screens'
# views too, whose dataclasses a command such as `studio list` has no use for.
NAMED_CLASSES = {
    "ReviewFilters": "studio.domain.views",
    "AnswerSession": "studio.services.answers.session",
    "AuditSession": "studio.services.audit.session",
    "BankEditor": "studio.services.rubric.editing",
    "CampaignSession": "studio.services.campaigns.session",
    "InteractiveSession": "studio.services.session",
    "ReviewSession": "studio.services.review.session",
}


def __getattr__(name: str) -> Any:
    if name in NAMED_CLASSES:
        return getattr(importlib.import_module(NAMED_CLASSES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Project(ProjectCore):
    """A project file: what is loaded into it, what can be asked of it, and what the screens show.

    >>> project = Project.open(":memory:")
    >>> project.counts()["runs"]
    0
    """

    @classmethod
    def sample(cls, path: str | Path | None = None, *, rebuild: bool = False, source: Path | None = None) -> Self:
        """The bundled sample project at `path` (default: the user data folder's demo.duckdb),
        built the first time (again with `rebuild`, dropping edits)."""
        return cls.open(build_sample_file(cls.demo_path(path), rebuild=rebuild, source=source))

    @classmethod
    def set_aside_sample(cls, path: str | Path | None = None) -> SampleSetAside:
        """Before `sample(rebuild=True)`: what the sample at `path` holds beyond a fresh one (the
        writes since it was built) and, when it holds any, a copy of it kept beside it."""
        return set_aside_sample(cls.demo_path(path))

    @staticmethod
    def demo_path(path: str | Path | None = None) -> Path:
        """Where the demo project lives: `path`, else the user data folder (never the working folder)."""
        return demo_project_path(path)

    @classmethod
    def doctor(cls, path: str | Path | None = None, *, wait: float = DEFAULT_WAIT_SECONDS) -> DoctorReport:
        """What the studio needs and can use here, and the health of the project file at `path`
        (else $STUDIO_DB, else ./studio.duckdb), which is opened read-only and never created."""

        def check(located: Path) -> CheckReport:
            with cls.open(located, wait=wait, create=False, read_only=True) as project:
                return project.check()

        def team(located: Path) -> TeamProbe | None:
            with cls.open(located, wait=wait, create=False, read_only=True) as project:
                return probe_team(project.db)

        # Imported when asked: it reaches every judge back end, which nothing else needs at start-up.
        from studio.services.doctor import Surroundings, diagnose

        return diagnose(Surroundings(cls.locate(path), check, team))

    # -- what the screens show -------------------------------------------------------------------

    def overview(self, *, topics: bool = True) -> Overview:
        """What the project holds, as the Overview screen and `studio demo --no-tui` show it;
        `topics=False` leaves the topics out (None), which cost a count of every pooled document."""
        return overview_views.overview(self, topics=topics)

    def names(self) -> ProjectNames:
        """The label sets, banks and topics the screens' selectors offer."""
        return overview_views.project_names(self)

    def leaderboard_view(
        self, ref: str, qrels: str, measure: str, *, topics: TopicChoice = EVERY_TOPIC
    ) -> LeaderboardView:
        """Both leaderboards side by side with their rank correlation and the label agreement, on the
        topics `topics` frames (by default those both label)."""
        return leaderboard_view(self.engine, ref, qrels, measure, topics)

    def estimate_view(self, qrels: str, gold: str, measure: str) -> EstimateView:
        """The leaderboard full human judging would give, estimated from `qrels` and the gold set."""
        return estimate_views.estimate_view(self, qrels, gold, measure)

    def calibration_view(self, label_set: str) -> CalibrationView | None:
        """The calibration curve of a calibrated set (or of the newest one made from `label_set`)."""
        return estimate_views.calibration_view(self, label_set)

    def bank_view(
        self, bank: str, topic: str | None, source: str | None, *, ref: str = "human", measure: str = "nDCG@10"
    ) -> BankView:
        """A bank's items of one topic (or all), with what a rubric judge's grades say of them."""
        return bank_views.bank_view(self, bank, topic, source, ref=ref, measure=measure)

    # -- sessions a person works in --------------------------------------------------------------

    def review(
        self,
        ref: str,
        qrels: str,
        *,
        measure: str = "nDCG@10",
        filters: ReviewFilters | None = None,
        person: str | None = None,
        topics: TopicChoice = EVERY_TOPIC,
    ) -> ReviewSession:
        """A review of the pairs `qrels` grades differently from `ref` on the topics `topics` frames
        (by default those both label; call `load()` to build its queue)."""
        from studio.services.review.decision_review import DecisionReviewSession
        from studio.services.review.session import ReviewSession

        # A decision pair narrows the queue to the labels behind that pair's significance decision.
        session = DecisionReviewSession if filters is not None and filters.decision_pair else ReviewSession
        return session(self, ref, qrels, measure=measure, filters=filters, person=person, topics=topics)

    def blind_audit(self, audit: str, *, person: str | None = None) -> AuditSession:
        """Grading an audit's sample in its random order, the LLM's grade hidden (call `load()`)."""
        from studio.services.audit.session import AuditSession

        return AuditSession(self, audit, person=person or self.team_member())

    def walk_campaign(self, campaign: str, *, person: str | None = None) -> CampaignSession:
        """Walking a campaign's pairs given to `person` as their conditions say (call `load()`)."""
        from studio.services.campaigns.session import CampaignSession

        return CampaignSession(self, campaign, person=person)

    def check_answers(self, label_set: str, *, person: str | None = None) -> AnswerSession:
        """Keeping or overriding an answers label set's verdicts one (topic, system) at a time, the
        leaderboard and τ between methods read after each check (call `load()`)."""
        from studio.services.answers.session import AnswerSession

        return AnswerSession(self, label_set, person=person or self.team_member())

    # -- the report --------------------------------------------------------------------------------

    def write_report(
        self,
        out: str | Path,
        *,
        ref: str | None = None,
        measure: str = "nDCG@10",
        resamples: int = 1000,
        with_embeddings: bool = False,
        topics: TopicChoice = EVERY_TOPIC,
        study: StudyOptions | None = None,
    ) -> WrittenReport:
        """report.html, report.md and figures/ of the whole project in folder `out` (`topics`: the
        comparisons' topics, by default those both label, and a subset of them; `study`: how the
        Prompt sensitivity section takes agreement, as `study_report`)."""
        # Imported when used: only the report loads matplotlib.
        from studio.services.report.build import build_report
        from studio.services.report.files import write_report

        built = build_report(
            self,
            ref=ref,
            measure=measure,
            resamples=resamples,
            with_embeddings=with_embeddings,
            topics=topics,
            study=study,
        )
        return write_report(built, out)
