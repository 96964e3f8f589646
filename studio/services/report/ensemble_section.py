"""The report's section on ensembles: κ and Kendall τ against the reference of each member and of
the ensemble (present only when the project has ensembles)."""

from __future__ import annotations

from studio.domain.frames import EVERY_TOPIC, TopicChoice
from studio.domain.report import Section, Table
from studio.services.ensembles.scores import all_ensemble_scores
from studio.services.facade.core import ProjectCore
from studio.services.report.cells import statistic


def ensemble_section(
    project: ProjectCore, reference: str, measure: str, topics: TopicChoice = EVERY_TOPIC
) -> list[Section]:
    """One section when the project has ensembles, none otherwise."""
    found = all_ensemble_scores(project.engine, reference, measure, topics)
    if not found:
        return []
    tables = [
        Table(
            title=f"{made['ensemble']}: {made['how']} of its members, against {reference}",
            columns=["label set", "role", "pairs", "κ graded", "κ binary", f"τ ({measure})"],
            rows=[
                {
                    "label set": row["qrels"],
                    "role": row["role"],
                    "pairs": row["pairs"],
                    "κ graded": statistic(row["kappa_graded"]),
                    "κ binary": statistic(row["kappa_binary"]),
                    f"τ ({measure})": statistic(row["kendall_tau"]),
                }
                for row in made["rows"]
            ],
        )
        for made in found
    ]
    return [
        Section(
            key="ensembles",
            title="Ensembles",
            text=(
                "Each ensemble combines its members' grades pair by pair (`studio ensemble`); "
                f"Cohen's κ of its labels and Kendall τ-b of its leaderboard against {reference}, "
                "beside its members'."
            ),
            tables=tables,
        )
    ]
