"""The Overview: what a project holds, in one value shared by `studio demo --no-tui` and the TUI."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from studio.services.project import Project


@dataclass(frozen=True)
class Overview:
    path: str
    counts: dict[str, int]
    topics: list[dict[str, Any]]
    runs: list[dict[str, Any]]
    label_sets: list[dict[str, Any]]
    banks: list[dict[str, Any]]
    responses: list[dict[str, Any]]
    judges: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        return {
            "project": self.path,
            "counts": self.counts,
            "topics": self.topics,
            "runs": self.runs,
            "label_sets": self.label_sets,
            "banks": self.banks,
            "responses": self.responses,
            "judges": self.judges,
        }


def overview(project: Project) -> Overview:
    return Overview(
        path=project.path,
        counts=project.counts(),
        topics=project.topics(),
        runs=project.runs(),
        label_sets=project.label_sets(),
        banks=project.banks(),
        responses=project.responses(),
        judges=project.judge_runs(),
    )


@dataclass(frozen=True)
class ProjectNames:
    """The names the screens' selectors offer."""

    label_sets: list[str]
    banks: list[str]
    topics: list[tuple[str, str]]  # (qid, query text)


def project_names(project: Project) -> ProjectNames:
    return ProjectNames(
        [row["name"] for row in project.label_sets()],
        [row["name"] for row in project.banks()],
        [(row["qid"], row["text"]) for row in project.topics()],
    )
