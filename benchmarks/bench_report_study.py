"""`studio report` of a prompt-study project (budget: report.html ≤ 5 MB, written in ≤ 30 s).

Builds a project shaped like the published prompt-sensitivity release, from synthetic data with a
fixed seed: two test collections (54 and 53 topics, distinct qids, as DL20 and DL21), the people's
graded qrels of both in one label set (`human`, ten passages per topic and grade), a prompt
collection of 40 prompts (20 by people, 20 by LLMs; each with a binary, a graded and a pairwise
message, but one without a pairwise message and one without a binary message for the second model)
and, per prompt × model (2) × method (3) × collection (2), a label set linked to them: binary 0/1
and graded 0–3 qrels as noisy copies of the reference, pairwise verdicts — 474 label sets, and no
run (a study-only project).

Times in the same run:
* `report`: `Project.write_report` of the whole project (every section) and the size of its files;
* the anchor `study_report`: `Project.study_report` alone (the numbers the study section prints,
  which the report must compute anyway).

Prints one JSON object: the report's seconds (wall clock, and the process's CPU time: on a shared
machine the wall clock waits for other work), its HTML's megabytes, its figures, each with its
ratio to the budget, and the report's time as a multiple of the anchor's.
Usage: python -m benchmarks.bench_report_study
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from pathlib import Path

from studio import Project

COLLECTIONS = {"dl20": (54, 1_000), "dl21": (53, 2_000)}  # topics, first qid
PROMPTS, MODELS, PER_GRADE = 40, ("model-a", "model-b"), 10
BUDGET_SECONDS, BUDGET_MB = 30.0, 5.0
METHODS = ("binary", "graded", "pairwise")
SEED = 2024


def prompt_ids() -> list[str]:
    return [f"human-{i}" for i in range(PROMPTS // 2)] + [f"LLM-{i}" for i in range(PROMPTS // 2)]


def prompts_json() -> dict[str, object]:
    """The release's `prompts.json` layout: per author, a system and user message per method."""
    messages = {
        "binary": "Query: {query}\nPassage: {passage}\nRelevant? Answer 1 or 0.",
        "graded": "Query: {query}\nPassage: {passage}\nGrade the passage 0, 1, 2 or 3.",
        "pairwise": "Query: {query}\nPassage 1: {passage_a}\nPassage 2: {passage_b}\nAnswer 1 or 2.",
    }
    found: dict[str, object] = {}
    for n, pid in enumerate(prompt_ids()):
        entry: dict[str, object] = {"participant_name": pid}
        for method, user in messages.items():
            if (n, method) != (3, "pairwise"):
                entry[method] = {"system": f"You are assessor {pid}, careful and fair ({n}).", "user": user}
        found[pid] = entry
    return found


def reference(rng: random.Random) -> dict[str, dict[tuple[str, str], int]]:
    """Per collection, the people's grades: PER_GRADE passages per topic and grade."""
    found: dict[str, dict[tuple[str, str], int]] = {}
    for name, (topics, first) in COLLECTIONS.items():
        grades: dict[tuple[str, str], int] = {}
        for t in range(topics):
            qid = str(first + t)
            for grade in range(4):
                for k in range(PER_GRADE):
                    grades[(qid, f"p{qid}-{grade}-{k}")] = grade
        found[name] = grades
    return found


def noisy(grade: int, rng: random.Random, method: str) -> int:
    shifted = min(3, max(0, grade + rng.choice((-1, 0, 0, 0, 1))))
    return int(shifted >= 2) if method == "binary" else shifted


def write_study(folder: Path, project: Project, rng: random.Random) -> int:
    """The reference, the prompts and the 474 linked label sets; returns the label sets made."""
    truth = reference(rng)
    (folder / "topics.tsv").write_text(
        "".join(f"{q}\ttopic {q} about things\n" for grades in truth.values() for q in sorted({q for q, _ in grades}))
    )
    project.import_topics(folder / "topics.tsv")
    human = folder / "human.qrels"
    human.write_text("".join(f"{q} 0 {d} {g}\n" for grades in truth.values() for (q, d), g in grades.items()))
    project.import_qrels(human, name="human")
    (folder / "prompts.json").write_text(json.dumps(prompts_json()))
    project.import_prompts(folder / "prompts.json", name="ps")
    made = 0
    for n, pid in enumerate(prompt_ids()):
        for model in MODELS:
            for method in METHODS:
                if (n, method) == (3, "pairwise") or (n, method, model) == (5, "binary", MODELS[1]):
                    continue
                for collection, grades in truth.items():
                    name = f"{model}-{method}-{pid}-{collection}"
                    path = folder / f"{name}.txt"
                    if method == "pairwise":
                        path.write_text(verdict_lines(grades, rng))
                        project.import_preferences(path, name=name, prompt=pid, model=model, collection=collection)
                    else:
                        path.write_text("".join(f"{q} 0 {d} {noisy(g, rng, method)}\n" for (q, d), g in grades.items()))
                        project.link_qrels(
                            project.import_qrels(path, name=name, kind="llm").names[0],
                            prompt=pid,
                            model=model,
                            collection=collection,
                            method=method,
                        )
                    made += 1
    return made


def verdict_lines(grades: dict[tuple[str, str], int], rng: random.Random) -> str:
    """Per topic and category, a few pairs with the judge's verdict (agree, disagree or tie)."""
    lines = []
    for qid in sorted({q for q, _ in grades}):
        for category, high, low in (("3-vs-01", 3, 0), ("2-vs-01", 2, 1), ("3-vs-2", 3, 2)):
            for k in range(3):
                verdict = rng.choice(("agree", "agree", "agree", "disagree", "tie"))
                lines.append(f"{qid} {category} p{qid}-{high}-{k} p{qid}-{low}-{k} {verdict}\n")
    return "".join(lines)


def main() -> None:
    rng = random.Random(SEED)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        with Project.open(folder / "study.duckdb") as project:
            started = time.perf_counter()
            made = write_study(folder, project, rng)
            build_seconds = time.perf_counter() - started
        with Project.open(folder / "study.duckdb") as project:
            started = time.perf_counter()
            project.study_report("human")
            anchor = time.perf_counter() - started
        with Project.open(folder / "study.duckdb") as project:
            started, cpu = time.perf_counter(), time.process_time()
            written = project.write_report(folder / "report")
            seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        html = (folder / "report" / "report.html").stat().st_size / 1e6
        total = sum(p.stat().st_size for p in (folder / "report").rglob("*") if p.is_file()) / 1e6
    print(
        json.dumps(
            {
                "label_sets": made,
                "build_seconds": round(build_seconds, 1),
                "report_seconds": round(seconds, 2),
                "report_cpu_seconds": round(cpu, 2),
                "report_html_mb": round(html, 3),
                "report_files_mb": round(total, 3),
                "figures": written.figures,
                "sections": written.sections,
                "study_report_seconds": round(anchor, 2),
                "ratio_to_study_report": round(seconds / anchor, 2),
                "ratio_to_budget_seconds": round(seconds / BUDGET_SECONDS, 3),
                "ratio_to_budget_mb": round(html / BUDGET_MB, 3),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
