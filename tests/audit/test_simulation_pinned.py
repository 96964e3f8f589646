"""`studio audit simulate` and the design recommendation give, for a seed, the figures they gave
before their estimates were computed for all trials at once: every design, estimator and measure
on the sample project, with label sets that lack pairs and whole topics (a stratum the LLM does
not predict), compared at a relative 1e-12 with `simulation_pinned.json`.

The pinned figures were computed one trial at a time (the estimator called per audit). To write
them again after an intended change of the draws or the estimates:
    STUDIO_UPDATE_PINNED=1 .venv/bin/python -m pytest tests/audit/test_simulation_pinned.py
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import copy_project

from studio import Project
from studio.domain.specs import AuditSimulationSpec

PINNED = Path(__file__).resolve().parent / "simulation_pinned.json"
UPDATE = os.environ.get("STUDIO_UPDATE_PINNED") == "1"
REL = 1e-12
LLM = "umbrela-smol"
# The sample's last three topics, lacked whole by `gappy`, and one pair in every seventh of the rest.
LACKED_TOPICS = ("1008", "1009", "1010")

# (case, simulate_audit's keyword arguments): ref is always `human`.
SIMULATIONS: list[tuple[str, dict[str, Any]]] = [
    ("topics ndcg", {"qrels": LLM, "budget": 6, "design": "topics"}),
    ("topics ndcg, lacked topics", {"qrels": "gappy", "budget": 7, "design": "topics"}),
    ("topics precision ppi++", {"qrels": LLM, "budget": 5, "measure": "P(rel=2)@10", "estimator": "ppi++"}),
    ("topics ndcg ppi", {"qrels": "gappy", "budget": 8, "estimator": "ppi", "seed": 3}),
    ("topics ndcg gold", {"qrels": LLM, "budget": 4, "estimator": "gold", "seed": 4}),
    ("pairs ndcg", {"qrels": LLM, "budget": 80, "design": "pairs"}),
    ("pairs ndcg, lacked pairs", {"qrels": "gappy", "budget": 80, "design": "pairs", "seed": 2}),
    ("pairs ndcg@5 binary", {"qrels": "binary", "budget": 60, "design": "pairs", "measure": "nDCG@5", "seed": 5}),
    ("pairs ndcg ppi", {"qrels": "gappy", "budget": 50, "design": "pairs", "estimator": "ppi"}),
    ("pairs ndcg ppi++", {"qrels": LLM, "budget": 40, "design": "pairs", "estimator": "ppi++", "seed": 6}),
    ("pairs ndcg gold", {"qrels": "gappy", "budget": 70, "design": "pairs", "estimator": "gold"}),
    ("pairs ndcg, few", {"qrels": LLM, "budget": 6, "design": "pairs", "seed": 7}),
    ("pairs precision", {"qrels": "gappy", "budget": 90, "design": "pairs", "measure": "P(rel=2)@10"}),
    (
        "pairs precision binary",
        {"qrels": "binary", "budget": 90, "design": "pairs", "measure": "P(rel=2)@10", "llm_relevant": 1.0},
    ),
    ("topics-neyman ndcg", {"qrels": LLM, "budget": 6, "design": "topics-neyman", "seed": 1}),
    (
        "topics-neyman precision, pilot",
        {"qrels": "gappy", "budget": 9, "design": "topics-neyman", "measure": "P(rel=2)@10", "pilot": "human"},
    ),
    ("pairs-uncertainty ndcg", {"qrels": LLM, "budget": 80, "design": "pairs-uncertainty", "seed": 1}),
    (
        "pairs-uncertainty ndcg, lacked pairs, pilot",
        {"qrels": "gappy", "budget": 90, "design": "pairs-uncertainty", "pilot": "human", "seed": 2},
    ),
    (
        "pairs-uncertainty precision",
        {"qrels": LLM, "budget": 60, "design": "pairs-uncertainty", "measure": "P(rel=2)@10"},
    ),
]
# (case, recommend_audit_design's keyword arguments)
RECOMMENDATIONS: list[tuple[str, dict[str, Any]]] = [
    ("recommend, pilot", {"qrels": LLM, "budget": 60, "pilot": "human", "seed": 1}),
    ("recommend, no pilot", {"qrels": LLM, "budget": 60, "seed": 2}),
]
TRIALS = 40


@pytest.fixture(scope="module")
def project(sample_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    """The sample project with `gappy` (the LLM's grades without three topics and a few pairs) and
    `binary` (its grades at 2 and above as 1, without a few pairs)."""
    folder = tmp_path_factory.mktemp("pinned")
    with Project.open(copy_project(sample_template, folder)) as found:
        found.export_qrels(LLM, folder / "llm.txt")
        rows = [line.split() for line in (folder / "llm.txt").read_text().splitlines()]
        kept = [row for i, row in enumerate(rows) if row[0] not in LACKED_TOPICS and i % 7 != 3]
        (folder / "gappy.txt").write_text("".join(" ".join(row) + "\n" for row in kept))
        binary = [(q, it, d, int(float(g) >= 2)) for i, (q, it, d, g) in enumerate(rows) if i % 13 != 5]
        (folder / "binary.txt").write_text("".join(f"{q} {it} {d} {g}\n" for q, it, d, g in binary))
        found.import_qrels(folder / "gappy.txt", name="gappy", kind="llm")
        found.import_qrels(folder / "binary.txt", name="binary", kind="llm")
        yield found


def computed(project: Project) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for case, kwargs in SIMULATIONS:
        figures[case] = dict(project.simulate_audit(AuditSimulationSpec("human", trials=TRIALS, **kwargs)))
    for case, kwargs in RECOMMENDATIONS:
        figures[case] = dict(project.recommend_audit_design(trials=TRIALS, **kwargs))
    return figures


def differences(found: Any, pinned: Any, where: str = "") -> list[str]:
    """Where `found` departs from `pinned`: numbers beyond REL (relative), anything else unequal."""
    if isinstance(pinned, dict) and isinstance(found, dict):
        if list(found) != list(pinned):
            return [f"{where}: keys {list(found)} != {list(pinned)}"]
        return [d for key in pinned for d in differences(found[key], pinned[key], f"{where}.{key}")]
    if isinstance(pinned, list) and isinstance(found, list):
        if len(found) != len(pinned):
            return [f"{where}: {len(found)} items != {len(pinned)}"]
        pairs = enumerate(zip(found, pinned, strict=True))
        return [d for i, (f, p) in pairs for d in differences(f, p, f"{where}[{i}]")]
    numbers = (int, float)
    if isinstance(pinned, numbers) and isinstance(found, numbers) and not isinstance(pinned, bool):
        if math.isclose(found, pinned, rel_tol=REL, abs_tol=1e-15):
            return []
        return [f"{where}: {found!r} != {pinned!r}"]
    return [] if found == pinned else [f"{where}: {found!r} != {pinned!r}"]


def test_simulations_give_the_pinned_figures(project: Project) -> None:
    figures = computed(project)
    if UPDATE:
        PINNED.write_text(json.dumps(figures, indent=1, allow_nan=False) + "\n")
    pinned = json.loads(PINNED.read_text())
    assert list(figures) == list(pinned)
    found = [d for case in pinned for d in differences(figures[case], pinned[case], case)]
    assert not found, "\n".join(found[:20])


def test_the_pinned_cases_are_figures_not_gaps() -> None:
    """Every pinned simulation gave a coverage and a width: the cases pin estimates, not refusals."""
    pinned = json.loads(PINNED.read_text())
    for case, _ in SIMULATIONS:
        assert pinned[case]["coverage"] is not None and pinned[case]["width"] is not None, case
        assert all(row["width"] is not None for row in pinned[case]["per_run"]), case
    for case, _ in RECOMMENDATIONS:
        assert any(row["coverage"] is not None for row in pinned[case]["designs"]), case
