"""The prompt-sensitivity study: label sets linked to prompts (imported or run), agreement per
prompt against the reference (κ checked against scikit-learn, shares by hand), mean and variance
per model × group × method (both variances pinned against numpy), α between a group's prompts,
lexical diversity, and a study of simulated judges whose κ per prompt is known."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from cli.cli_helpers import assert_matches_golden
from helpers import cli
from sklearn.metrics import cohen_kappa_score

from studio import Project
from studio.domain.judging import JudgeConfig
from studio.domain.prompt_study import StudyPlan, StudyPrompt, StudyReport, StudyRunSummary
from studio.judges.backend import Backend
from studio.judges.simulated import SimulatedBackend
from studio.metrics.reliability import krippendorff_alpha
from studio.services.sensitivity.study import lexical_diversity, mean_jaccard_distance, type_token_ratio

HUMAN = {  # (qid, docid): grade — two topics, every grade
    **{("q1", f"d{i}"): g for i, g in enumerate([3, 3, 2, 2, 1, 1, 0, 0, 0, 0])},
    **{("q2", f"e{i}"): g for i, g in enumerate([3, 2, 2, 1, 1, 0, 0, 0])},
}
LLM_LABELS = {  # each prompt's binary labels of the same pairs
    "p-h1": [1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0],
    "p-h2": [1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0],
    "p-l1": [1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1],
    "p-l2": [0, 1, 1, 1, 0, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 0],
    "p-l3": [1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0],
}
PROMPT_OF = {"p-h1": "human-1", "p-h2": "human-2", "p-l1": "LLM-1", "p-l2": "LLM-2", "p-l3": "LLM-3"}


def qrels_text(grades: dict[tuple[str, str], int] | dict[tuple[str, str], float]) -> str:
    return "".join(f"{q} 0 {d} {g:g}\n" for (q, d), g in grades.items())


def collection() -> dict[str, object]:
    user = "Query: {query}\nPassage: {passage}\nRelevant? 1 or 0."
    entries: dict[str, object] = {
        pid: {"participant_name": pid, "binary": {"system": f"You are assessor {pid}.", "user": user}}
        for pid in PROMPT_OF.values()
    }
    entries["human-1"] = {
        "participant_name": "human-1",
        "binary": {"system": "Be careful.", "user": user},
        "graded": {"system": "Grade it.", "user": "{query}\n{passage}\nGrade 0-3:"},
        "pairwise": {"system": "", "user": "{query}\nPassage 1: {passage_a}\nPassage 2: {passage_b}\n1 or 2?"},
    }
    return entries


def build_project(folder: Path) -> Path:
    """Topics, passages, two runs, the people's qrels, a prompt collection and its linked label sets."""
    db = folder / "study.duckdb"
    docs = sorted({d for _, d in HUMAN})
    (folder / "topics.tsv").write_text("q1\tbest pizza dough\nq2\tmoon landing year\n", encoding="utf-8")
    (folder / "docs.tsv").write_text("".join(f"{d}\tpassage {d} about things\n" for d in docs), encoding="utf-8")
    (folder / "human.qrels").write_text(qrels_text(HUMAN), encoding="utf-8")
    run_lines = [
        f"{q} Q0 {d} {r + 1} {10 - r} {name}\n"
        for name, step in (("runA", 1), ("runB", -1))
        for q in ("q1", "q2")
        for r, d in enumerate(sorted((x for p, x in HUMAN if p == q))[::step])
    ]
    (folder / "runs.txt").write_text("".join(line for line in run_lines if "runA" in line), encoding="utf-8")
    (folder / "runs2.txt").write_text("".join(line for line in run_lines if "runB" in line), encoding="utf-8")
    (folder / "prompts.json").write_text(json.dumps(collection(), indent=1), encoding="utf-8")
    for args in (
        ("topics", folder / "topics.tsv"),
        ("docs", folder / "docs.tsv"),
        ("qrels", folder / "human.qrels", "--name", "human"),
        ("run", folder / "runs.txt", folder / "runs2.txt"),
        ("prompts", folder / "prompts.json", "--name", "ps"),
    ):
        assert cli(db, "import", *args).exit_code == 0
    for name, labels in LLM_LABELS.items():
        path = folder / f"{name}.qrels"
        path.write_text(qrels_text(dict(zip(HUMAN, labels, strict=True))), encoding="utf-8")
        found = cli(
            db,
            "import",
            "qrels",
            path,
            "--name",
            name,
            "--prompt",
            PROMPT_OF[name],
            "--model",
            "m1",
            "--collection",
            "dl-toy",
            "--method",
            "binary",
        )
        assert found.exit_code == 0, found.output
    verdicts = folder / "verdicts.txt"
    verdicts.write_text(
        "q1 3-vs-01 d0 d6 agree\nq1 3-vs-2 d0 d2 tie\nq2 2-vs-01 e1 e5 agree\nq2 3-vs-01 e0 e6 disagree\n"
    )
    found = cli(
        db,
        "import",
        "preferences",
        verdicts,
        "--name",
        "pw-h1",
        "--prompt",
        "ps/human-1",
        "--model",
        "m1",
        "--collection",
        "dl-toy",
    )
    assert found.exit_code == 0, found.output
    return db


@pytest.fixture()
def project_file(tmp_path: Path) -> Path:
    return build_project(tmp_path)


def report_of(db: Path, *args: str) -> StudyReport:
    result = cli(db, "sensitivity", "report", "--ref", "human", *args, "-f", "json")
    assert result.exit_code == 0, result.output
    found: StudyReport = json.loads(result.stdout)
    return found


def test_kappa_per_prompt_is_sklearns_at_each_sides_level(project_file: Path) -> None:
    report = report_of(project_file)
    human = np.array(list(HUMAN.values()))
    binary = {c["label_set"]: c for c in report["cells"] if c["method"] == "binary"}
    assert sorted(binary) == sorted(LLM_LABELS)
    for name, labels in LLM_LABELS.items():
        expected = cohen_kappa_score((human >= 2).astype(int), labels)
        assert binary[name]["agreement"] == pytest.approx(expected)
        assert binary[name]["pairs"] == len(HUMAN) and binary[name]["group"] == ("people" if "h" in name[2] else "llm")
    # At the reference's level 1 instead, another κ.
    lenient = {c["label_set"]: c["agreement"] for c in report_of(project_file, "--ref-relevant", "1")["cells"]}
    assert lenient["p-h2"] == pytest.approx(cohen_kappa_score((human >= 1).astype(int), LLM_LABELS["p-h2"]))


def test_pairwise_agreement_is_the_share_of_agree_verdicts(project_file: Path) -> None:
    [cell] = [c for c in report_of(project_file)["cells"] if c["method"] == "pairwise"]
    assert (cell["agreement"], cell["pairs"], cell["tie_rate"]) == (0.5, 4, 0.25)
    assert cell["position_bias"] is None  # verdicts alone do not say which passage was shown first


@pytest.mark.parametrize(("variance", "ddof"), [("sample", 1), ("population", 0)])
def test_group_means_and_variances_are_numpys(project_file: Path, variance: str, ddof: int) -> None:
    report = report_of(project_file, "--variance", variance)
    assert report["variance"] == variance
    human = np.array(list(HUMAN.values())) >= 2
    for group, names in (("people", ["p-h1", "p-h2"]), ("llm", ["p-l1", "p-l2", "p-l3"])):
        kappas = [cohen_kappa_score(human.astype(int), LLM_LABELS[n]) for n in names]
        [row] = [g for g in report["groups"] if g["group"] == group and g["method"] == "binary"]
        assert row["mean"] == pytest.approx(np.mean(kappas))
        assert row["variance"] == pytest.approx(np.var(kappas, ddof=ddof))
        assert row["cells"] == len(names)


def test_alpha_between_a_groups_prompts(project_file: Path) -> None:
    report = report_of(project_file)
    [llm] = [a for a in report["alpha"] if a["group"] == "llm" and a["method"] == "binary"]
    data = np.array([LLM_LABELS[n] for n in ("p-l1", "p-l2", "p-l3")], dtype=float)
    assert llm["alpha"] == pytest.approx(krippendorff_alpha(data, "nominal"))
    assert (llm["prompts"], llm["units"], llm["level"]) == (3, len(HUMAN), "nominal")


def test_leaderboard_tau_under_each_prompt(project_file: Path) -> None:
    cells = {c["label_set"]: c for c in report_of(project_file)["cells"]}
    # Two runs: τ is +1 or −1, as the prompt's labels put them in the people's order or not.
    assert {cells[n]["kendall_tau"] for n in LLM_LABELS} <= {1.0, -1.0}


def test_lexical_diversity_by_hand() -> None:
    assert type_token_ratio(["a b a", "b c"]) == pytest.approx(3 / 5)
    assert mean_jaccard_distance(["a b", "b c", "a b"]) == pytest.approx(np.mean([1 - 1 / 3, 0.0, 1 - 1 / 3]))
    prompts = [
        StudyPrompt(f"p{i}", "x", "g", "binary", "same words", f"user {i} {{query}} {{passage}}") for i in range(3)
    ]
    [system, user] = lexical_diversity(prompts)
    assert (system["message"], system["jaccard_distance"], user["message"]) == ("system", 0.0, "user")
    assert user["jaccard_distance"] == pytest.approx(1 - 3 / 5)


def test_the_report_as_a_golden_table(project_file: Path) -> None:
    result = cli(project_file, "sensitivity", "report", "--ref", "human", "--reference", "p-h2")
    assert result.exit_code == 0, result.output
    assert_matches_golden("sensitivity_report.txt", result.stdout)


def test_a_report_without_linked_sets_or_reference_exits_2(tmp_path: Path) -> None:
    db = tmp_path / "p.duckdb"
    (tmp_path / "h.qrels").write_text("q1 0 d1 1\n", encoding="utf-8")
    assert cli(db, "import", "qrels", tmp_path / "h.qrels", "--name", "human").exit_code == 0
    result = cli(db, "sensitivity", "report", "--ref", "human")
    assert result.exit_code == 2 and "no label set is linked to a prompt" in result.stderr
    assert cli(db, "sensitivity", "report", "--ref", "nobody").exit_code == 2
    linked = cli(
        db,
        "import",
        "qrels",
        tmp_path / "h.qrels",
        "--name",
        "x",
        "--prompt",
        "p1",
        "--model",
        "m",
        "--collection",
        "c",
    )
    assert linked.exit_code == 2 and "no prompt 'p1'" in linked.stderr
    (tmp_path / "ps.json").write_text(
        json.dumps(
            {
                "p2": {
                    "participant_name": "human-2",
                    "pairwise": {"system": "", "user": "{query} {passage_a} {passage_b}"},
                }
            }
        ),
        encoding="utf-8",
    )
    assert cli(db, "import", "prompts", tmp_path / "ps.json").exit_code == 0
    pairwise_only = cli(
        db,
        "import",
        "qrels",
        tmp_path / "h.qrels",
        "--name",
        "x",
        "--prompt",
        "p2",
        "--model",
        "m",
        "--collection",
        "c",
    )
    assert pairwise_only.exit_code == 2 and "its judgments are preferences" in pairwise_only.stderr
    with Project.open(db) as project:
        assert "x" not in [row["name"] for row in project.label_sets()]


KAPPAS = {"human-1": 0.9, "human-2": 0.5, "LLM-1": 0.3, "LLM-2": 0.7, "LLM-3": 0.1}


def test_a_study_recovers_the_kappa_set_per_prompt(simulated_sample: Path, tmp_path: Path) -> None:
    """Simulated judges, each prompt its own κ: the study's κ per prompt is the set one within
    sampling error (graded: unweighted κ on the grades), and a rerun costs no call."""
    prompts = tmp_path / "prompts.json"
    prompts.write_text(
        json.dumps({p: {"participant_name": p, "graded": {"system": "", "user": "{query} {passage}"}} for p in KAPPAS}),
        encoding="utf-8",
    )
    with Project.open(simulated_sample) as project:
        project.import_prompts(prompts, name="sim")
        grades = {q: dict(t.judged) for q, t in project.engine.evaluator("human").labels.items()}

        def judge(prompt: StudyPrompt, model: str) -> Backend:
            return SimulatedBackend("human", grades, kappa=KAPPAS[prompt.prompt_id], seed=len(prompt.prompt_id) * 7)

        plan = StudyPlan("sim", ("graded",), "sample", per_grade=None)
        config = JudgeConfig(method="graded", backend="simulated", name="study")
        *_, summary = project.run_study(plan, config, ["sim-model"], backend_for=judge, variance="population")
        assert isinstance(summary, dict) and summary["calls"] == 5 * 280 and summary["failures"] == 0
        cells = {c["prompt"]: c for c in summary["report"]["cells"]}
        for prompt_id, kappa in KAPPAS.items():
            found = cells[prompt_id]["agreement"]
            assert found is not None and abs(found - kappa) < 0.1, (prompt_id, found, kappa)
            assert cells[prompt_id]["pairs"] == 280
        people = [float(cells[p]["agreement"] or 0.0) for p in ("human-1", "human-2")]
        [row] = [g for g in summary["report"]["groups"] if g["group"] == "people"]
        assert row["variance"] == pytest.approx(np.var(people))
        *_, again = project.run_study(plan, config, ["sim-model"], backend_for=judge)
        assert isinstance(again, dict) and again["calls"] == 0 and again["cache_hits"] == 5 * 280


def test_the_study_command_with_the_simulated_judge(simulated_sample: Path, tmp_path: Path) -> None:
    prompts = tmp_path / "prompts.json"
    prompts.write_text(json.dumps(collection()), encoding="utf-8")
    assert cli(simulated_sample, "import", "prompts", prompts, "--name", "ps").exit_code == 0
    result = cli(
        simulated_sample,
        "sensitivity",
        "run",
        "--prompts",
        "ps",
        "--collection",
        "sample",
        "--backend",
        "simulated",
        "--kappa",
        "0.7",
        "--per-grade",
        "3",
        "--per-category",
        "2",
        "-f",
        "json",
    )
    assert result.exit_code == 0, result.output
    summary: StudyRunSummary = json.loads(result.stdout)
    assert len(summary["label_sets"]) == 7  # five binary prompts, one graded, one pairwise
    [pairwise] = [c for c in summary["report"]["cells"] if c["method"] == "pairwise"]
    assert pairwise["pairs"] > 0 and pairwise["position_bias"] is not None and pairwise["tie_rate"] is not None
    binary = [c for c in summary["report"]["cells"] if c["method"] == "binary"]
    assert all(c["pairs"] <= 10 * 4 * 3 for c in binary) and len({c["agreement"] for c in binary}) > 1


def test_the_report_has_a_prompt_sensitivity_section_with_its_figures(project_file: Path, tmp_path: Path) -> None:
    from PIL import Image

    out = tmp_path / "report"
    result = cli(project_file, "report", "--ref", "human", "--out", out, "--resamples", "50")
    assert result.exit_code == 0, result.output
    html = next(out.glob("*.html")).read_text(encoding="utf-8")
    assert 'id="prompt-sensitivity"' in html and "Per model × group × method (Table 4.5)" in html
    figures = sorted(p.name for p in (out / "figures").glob("prompt*.png"))
    assert figures == [
        "prompt-alpha.png",
        "prompt-diversity.png",
        "prompts-m1-binary-dl-toy.png",
        "prompts-m1-pairwise-dl-toy.png",
    ]
    with Image.open(out / "figures" / "prompts-m1-binary-dl-toy.png") as image:
        assert image.size == (1000, 420)


def test_raw_preferences_are_paired_by_order_and_tell_position_bias(project_file: Path, tmp_path: Path) -> None:
    """Raw answers per order: d0 (grade 3) against d6 (0) won in both orders — agree; d2 (2)
    against d0 (3): the first shown won twice — a tie; e6 against e7 (both 0) is not ordered by
    the reference, and d4 against d8 has one order only: both left out, with a warning."""
    raw = tmp_path / "raw.txt"
    raw.write_text("q1 d0 d6 1\nq1 d6 d0 2\nq1 d2 d0 1\nq1 d0 d2 1\nq2 e6 e7 1\nq2 e7 e6 2\nq1 d4 d8 1\n")
    result = cli(
        project_file,
        "import",
        "preferences",
        raw,
        "--name",
        "raw-h1",
        "--prompt",
        "human-1",
        "--model",
        "m2",
        "--collection",
        "dl-toy",
    )
    assert result.exit_code == 0, result.output
    assert "2 pair(s) the reference does not order or answered in one order only" in result.stderr
    over_people = cli(
        project_file,
        "import",
        "preferences",
        raw,
        "--name",
        "human",
        "--replace",
        "--prompt",
        "human-1",
        "--model",
        "m2",
        "--collection",
        "dl-toy",
    )
    assert over_people.exit_code == 2 and "holds human labels" in over_people.stderr
    [cell] = [c for c in report_of(project_file)["cells"] if c["label_set"] == "raw-h1"]
    assert (cell["pairs"], cell["agreement"], cell["tie_rate"]) == (2, 0.5, 0.5)
    assert cell["position_bias"] == 0.75  # three of the four answers chose the passage shown first


def test_a_simulated_judge_of_kappa_1_agrees_perfectly_with_its_report(simulated_sample: Path, tmp_path: Path) -> None:
    """The simulated judge answers "relevant" where the report counts the reference relevant (its
    `--ref-relevant`): a κ 1 judge was once reported at κ 0.5, binarised at grade 1 by the judge
    and at grade 2 by the report."""
    prompts = tmp_path / "prompts.json"
    prompts.write_text(json.dumps(collection()), encoding="utf-8")
    assert cli(simulated_sample, "import", "prompts", prompts, "--name", "ps").exit_code == 0
    for level in ("2", "1"):
        result = cli(
            simulated_sample,
            *("sensitivity", "run", "--prompts", "ps", "--collection", "sample", "--backend", "simulated"),
            *("--kappa", "1", "--method", "binary", "--per-grade", "3", "--ref-relevant", level),
            *("--name", f"perfect{level}", "-f", "json"),
        )
        assert result.exit_code == 0, result.output
        cells = json.loads(result.stdout)["report"]["cells"]
        binary = [c for c in cells if c["method"] == "binary" and c["label_set"].startswith(f"perfect{level}-")]
        assert len(binary) == 5 and all(c["agreement"] == pytest.approx(1.0) for c in binary), binary
