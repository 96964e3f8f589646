"""Answers on the runs' scale (the thesis, §5.1.4; `studio answers runs`): each run's first retrieved
passage that is not a top-grade passage, and each system's answer, by mean cosine to those passages,
equal a computation by hand from the sample's files; τ-b between the runs' similarity and nDCG@10
equals scipy's."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from embedding_helpers import HashEmbedder, document_texts, human_qrels, run_names, run_top
from helpers import copy_project
from scipy.stats import kendalltau

from studio import Project


def test_similarities_and_tau_equal_a_hand_computation(sample_template: Path, tmp_path: Path) -> None:
    embedder = HashEmbedder()
    with Project.open(copy_project(sample_template, tmp_path)) as project:
        result = project.answers_on_runs_scale("human", embedder=embedder)
        ndcg = project.leaderboard("human", "nDCG@10")
        answers = {
            (q, s): t for q, s, t in project.db.cursor().execute("SELECT qid, system, text FROM responses").fetchall()
        }
    texts = document_texts()
    qrels = human_qrels()
    targets = {q: sorted(d for d, g in grades.items() if g == max(grades.values())) for q, grades in qrels.items()}

    def cos(a: str, b: str) -> float:
        x, y = embedder.encode([a, b]).astype(np.float64)
        return float(x @ y)

    rows = {(r["kind"], r["name"]): r for r in result["rows"]}
    for run in run_names():
        ranked = run_top(run, 2)
        found = [
            cos(texts[t], texts[next(d for d in ranked[q] if d != t)]) for q in sorted(targets) for t in targets[q]
        ]
        row = rows[("run", run)]
        assert row["similarity"] == pytest.approx(np.mean(found), abs=1e-6)
        assert row["measure"] == pytest.approx(ndcg[run]) and row["comparisons"] == len(found)
    for system in ("liar", "solid", "terse"):
        found = [cos(texts[t], answers[(q, system)]) for q in sorted(targets) for t in targets[q]]
        assert rows[("system", system)]["similarity"] == pytest.approx(np.mean(found), abs=1e-6)
    runs = run_names()
    expected = kendalltau([rows[("run", r)]["similarity"] for r in runs], [ndcg[r] for r in runs]).statistic
    assert result["kendall_tau"] == pytest.approx(expected)
    systems = [rows[("system", s)]["similarity"] for s in ("liar", "solid", "terse")]
    assert result["band"] == [min(systems), max(systems)]  # type: ignore[type-var]
    assert json.loads(json.dumps(result)) == result  # plain JSON
