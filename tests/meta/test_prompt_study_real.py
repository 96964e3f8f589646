"""The study on real data: TREC DL 2019/2020's NIST qrels as the reference and GPT-4's published
UMBRELA labels linked to a prompt (reading mode: the passages are not shared, so nothing is
judged), and — slow — a short study run with the bundled SmolLM2 model on the sample project."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from helpers import cli
from sklearn.metrics import cohen_kappa_score

from studio.domain.prompt_study import StudyReport, StudyRunSummary

ROOT = Path(__file__).resolve().parents[2]
DL = ROOT / ".." / "shared" / "data" / "trec-dl"
UMBRELA = ROOT / "tests" / "published" / "umbrela-gpt4"
COLLECTION = {  # made up for this test; only the layout is the study's
    "LLM-umb": {
        "participant_name": "LLM-umb",
        "graded": {"system": "You grade passages.", "user": "Query: {query}\nPassage: {passage}\nGrade 0-3:"},
    },
}


def read_grades(path: Path) -> dict[tuple[str, str], int]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as lines:
        return {(q, d): int(float(g)) for q, _, d, g in (line.split() for line in lines if line.strip())}


@pytest.mark.parametrize("year", ["19", "20"])
def test_published_umbrela_labels_linked_to_a_prompt_on_dl(year: str, tmp_path: Path) -> None:
    qrels = DL / f"qrels.dl{year}-passage.txt"
    labels = UMBRELA / f"umbrela-gpt4-dl{year}.txt.gz"
    if not qrels.is_file() or not labels.is_file():
        pytest.skip("TREC DL qrels or the published UMBRELA labels are absent")
    db = tmp_path / "dl.duckdb"
    (tmp_path / "prompts.json").write_text(json.dumps(COLLECTION), encoding="utf-8")
    assert cli(db, "import", "qrels", qrels, "--name", "human").exit_code == 0
    assert cli(db, "import", "prompts", tmp_path / "prompts.json", "--name", "ps").exit_code == 0
    linked = cli(
        db,
        "import",
        "qrels",
        labels,
        "--name",
        "gpt4",
        "--prompt",
        "LLM-umb",
        "--model",
        "gpt-4",
        "--collection",
        f"dl{year}",
    )
    assert linked.exit_code == 0, linked.output
    result = cli(db, "sensitivity", "report", "--ref", "human", "-f", "json")
    assert result.exit_code == 0, result.output
    report: StudyReport = json.loads(result.stdout)
    [cell] = report["cells"]
    human, gpt4 = read_grades(qrels), read_grades(labels)
    pairs = sorted(human)
    expected = cohen_kappa_score([human[p] for p in pairs], [gpt4[p] for p in pairs])
    assert cell["pairs"] == len(pairs) and cell["agreement"] == pytest.approx(expected)
    assert (cell["method"], cell["group"], cell["collection"]) == ("graded", "llm", f"dl{year}")
    assert report["groups"][0]["mean"] == pytest.approx(expected) and report["groups"][0]["variance"] is None
    assert np.isfinite(expected) and 0.2 < expected < 0.6  # GPT-4 UMBRELA vs NIST, graded


@pytest.mark.model
@pytest.mark.slow
def test_a_short_study_with_the_bundled_model(simulated_sample: Path, tmp_path: Path) -> None:
    prompts = {
        "human-x": {
            "participant_name": "human-x",
            "binary": {"system": "", "user": "Query: {query}\nPassage: {passage}\nRelevant? Answer 1 or 0."},
            "pairwise": {"system": "", "user": "Query: {query}\n1: {passage_a}\n2: {passage_b}\nBetter: 1 or 2?"},
        },
        "LLM-x": {
            "participant_name": "LLM-x",
            "binary": {"system": "Answer yes or no.", "user": "{query}\n{passage}\nIs the passage relevant?"},
        },
    }
    (tmp_path / "prompts.json").write_text(json.dumps(prompts), encoding="utf-8")
    assert cli(simulated_sample, "import", "prompts", tmp_path / "prompts.json", "--name", "ps").exit_code == 0
    args = ["sensitivity", "run", "--prompts", "ps", "--collection", "sample", "--topic", "1001"]
    args += ["--per-grade", "1", "--per-category", "1", "-f", "json"]
    first = cli(simulated_sample, *args)
    assert first.exit_code == 0, first.output
    summary: StudyRunSummary = json.loads(first.stdout)
    assert len(summary["label_sets"]) == 3 and summary["calls"] > 0
    cells = summary["report"]["cells"]
    [model] = {c["model"] for c in cells}  # the GGUF file's name, loaded once for the three prompts
    assert model.lower().startswith("smollm2") and model.endswith(".gguf")
    assert all(c["pairs"] <= 4 for c in cells if c["method"] == "binary")  # one passage per grade
    again: StudyRunSummary = json.loads(cli(simulated_sample, *args).stdout)
    assert again["calls"] == 0 and again["cache_hits"] == summary["calls"]  # resumable: nothing asked twice
