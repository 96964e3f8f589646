"""`ProjectCore`: the project with every subject but the screens' views (`services/project.py` adds
those). The view and report modules take a `ProjectCore`; the facade that builds them on top
imports them, never the other way round."""

from __future__ import annotations

from studio.services.facade.answers import AnswersMixin
from studio.services.facade.audits import AuditsMixin
from studio.services.facade.banks import BanksMixin
from studio.services.facade.campaigns import CampaignsMixin
from studio.services.facade.evaluation import EvaluationMixin
from studio.services.facade.exports import ExportsMixin
from studio.services.facade.imports import ImportsMixin
from studio.services.facade.judges import JudgesMixin
from studio.services.facade.labels import LabelsMixin
from studio.services.facade.prompt_study import PromptStudyMixin
from studio.services.facade.score_tables import ScoreTablesMixin
from studio.services.facade.significance import SignificanceMixin
from studio.services.facade.team import TeamMixin


class ProjectCore(
    PromptStudyMixin,
    ImportsMixin,
    EvaluationMixin,
    SignificanceMixin,
    LabelsMixin,
    AuditsMixin,
    CampaignsMixin,
    JudgesMixin,
    BanksMixin,
    ExportsMixin,
    ScoreTablesMixin,
    TeamMixin,
    AnswersMixin,
):
    """A project file and everything that can be asked of it headless."""
