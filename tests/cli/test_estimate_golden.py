"""`studio estimate --format json` on the sample project, golden: eight of its ten topics graded
by people (enough for the default cross-fitted estimator to weigh the LLM labels), and a pair
sample for nDCG@10 by the linearised ratio estimator.

To regenerate the golden files after an intended change of output:
    STUDIO_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/cli/test_estimate_golden.py
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from cli.cli_helpers import assert_matches_golden, normalised, run_clirunner

from studio import Project

LLM = "umbrela-smol"
GOLD_TOPICS = 8
GOLD_PAIRS = 120
SEED = 5


def _import_gold(project: Project, folder: Path, design: str) -> None:
    """`gold`: the human grades of a seeded random sample of topics or of judged pairs."""
    human = project.engine.evaluator("human").labels
    qids = sorted(q for q, t in human.items() if t.judged)
    rng = np.random.default_rng(SEED)
    if design == "topics":
        chosen = set(rng.choice(qids, size=GOLD_TOPICS, replace=False).tolist())
        pairs = [(q, d, g) for q in qids if q in chosen for d, g in sorted(human[q].judged.items())]
    else:
        every = [(q, d, g) for q in qids for d, g in sorted(human[q].judged.items())]
        pairs = [every[i] for i in sorted(rng.choice(len(every), size=GOLD_PAIRS, replace=False).tolist())]
    path = folder / "gold.txt"
    path.write_text("".join(f"{q} 0 {d} {g:g}\n" for q, d, g in pairs))
    project.import_qrels(path, name="gold")


def _estimate(project: Path, home: Path, *args: str) -> str:
    result = run_clirunner(["--db", str(project), "estimate", "--qrels", LLM, "--gold", "gold", *args], home)
    assert result.code == 0, result.stderr
    return normalised(result.stdout, project)


def test_estimate_json_of_a_topic_audit(sample: Path, tmp_path: Path) -> None:
    with Project.open(sample) as project:
        _import_gold(project, tmp_path, "topics")
    out = _estimate(sample, tmp_path, "--format", "json")
    found = json.loads(out)
    assert found["estimator"] == "cross-fit" and found["gold_units"] == GOLD_TOPICS
    # SmolLM2's labels widen the intervals a little even at λ ≈ 0.06: the advice names gold-only,
    # not the default the estimate already used.
    assert "--estimator gold" in found["advice"] and "cross-fit" not in found["advice"]
    assert_matches_golden("estimate_topics.json", out)


def test_estimate_json_of_ndcg_from_a_pair_audit(sample: Path, tmp_path: Path) -> None:
    with Project.open(sample) as project:
        _import_gold(project, tmp_path, "pairs")
    out = _estimate(sample, tmp_path, "--design", "pairs", "-m", "nDCG@10", "--format", "json")
    found = json.loads(out)
    assert found["design"] == "pairs" and found["gold_units"] == GOLD_PAIRS
    assert_matches_golden("estimate_pairs_ndcg.json", out)
