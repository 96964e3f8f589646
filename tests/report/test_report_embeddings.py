"""`--with-embeddings`: the FD@10 section, here with a small seeded embedder instead of torch's."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from studio import Project
from studio.formats.report_writers import format_cell
from studio.services.evaluation.frechet import fd_leaderboard
from studio.services.report.build import build_report


class HashEmbedder:
    """Eight dimensions from a text's md5: a stable vector per text, no model."""

    name = "hash-8"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        rows = np.array([list(hashlib.md5(t.encode()).digest()[:8]) for t in texts], dtype=np.float32) - 127.5
        unit: np.ndarray = rows / np.linalg.norm(rows, axis=1, keepdims=True)
        return unit


def test_the_fd_section_comes_before_the_audit_history_and_holds_fd_at_10(report_project: Path) -> None:
    with Project.open(report_project) as project:
        without = build_report(project, resamples=20)
        report = build_report(project, resamples=20, with_embeddings=True, embedder=HashEmbedder())
        expected = {
            name: fd_leaderboard(project.engine, name, k=10, embedder=HashEmbedder()) for name in ("human", "sim")
        }
    keys = [s.key for s in report.sections]
    assert "embeddings" not in [s.key for s in without.sections]
    assert keys[-2:] == ["embeddings", "audit"]
    fd, taus = report.sections[-2].tables
    for name, board in expected.items():
        shown = {row["run"]: format_cell(row[name]) for row in fd.rows}
        assert shown == {row["run"]: format_cell(row["value"]) for row in board["rows"]}
    own = {row["label set"]: row["τ against its own nDCG@10"] for row in taus.rows}
    assert own["human"] == expected["human"]["kendall_tau"]
    # under the reference itself, the two τ columns are the same comparison
    assert {row["label set"]: row["τ against human's nDCG@10"] for row in taus.rows}["human"] == own["human"]
