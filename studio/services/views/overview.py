"""The Overview: what a project holds, in one value shared by `studio demo --no-tui` and the TUI."""

from __future__ import annotations

from studio.domain.views import Overview, ProjectNames
from studio.services.facade.core import ProjectCore
from studio.store.score_tables import list_score_tables


def overview(project: ProjectCore, *, topics: bool = True) -> Overview:
    return Overview(
        path=project.path,
        counts=project.counts(),
        topics=project.topics() if topics else None,
        runs=project.runs(),
        label_sets=project.label_sets(),
        banks=project.banks(),
        responses=project.responses(),
        judges=project.judge_runs(),
        leaderboards=list_score_tables(project.db.cursor()),
    )


def project_names(project: ProjectCore) -> ProjectNames:
    return ProjectNames(
        [row["name"] for row in project.label_set_names()],
        [row["name"] for row in project.banks()],
        [(row["qid"], row["text"] or "") for row in project.topics()],
    )
