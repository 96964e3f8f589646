"""What every screen of the studio shares: the project, the chosen label sets, who works, and the
lock on the evaluation engine's cached evaluators (worker threads and the UI thread share them)."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from textual.app import App

from studio.services.project import Project


@dataclass
class Selection:
    """The label sets and measure the Leaderboard and Review screens work on."""

    ref: str | None
    qrels: str | None
    measure: str = "nDCG@10"


def default_selection(
    project: Project, ref: str | None = None, qrels: str | None = None, measure: str = "nDCG@10"
) -> Selection:
    """`human` (or the first label set) against the first LLM label set (else a simulated one), unless named."""
    sets = project.label_sets()
    names = [row["name"] for row in sets]
    ref = ref or ("human" if "human" in names else names[0] if names else None)
    judged = [
        row["name"] for kind in ("llm", "simulated") for row in sets if row["kind"] == kind and row["name"] != ref
    ]
    others = [n for n in names if n != ref]
    qrels = qrels or (judged[0] if judged else others[0] if others else None)
    return Selection(ref, qrels, measure)


@dataclass
class StudioState:
    project: Project
    selection: Selection
    person: str | None = None

    @property
    def engine_lock(self) -> threading.RLock:
        """The project's lock: the UI thread, the workers and the write path take turns with it."""
        return self.project.lock


class StateApp(App[None]):
    """An app that holds the studio's state; every studio screen runs in one."""

    def __init__(self, state: StudioState) -> None:
        super().__init__()
        self.state = state
