"""The test-bank life cycle on the sample project with a real local model, end to end.

Generates a question, a nugget and a subtopic bank for every topic from the queries alone,
grades every pair of the human pool with exam-question, exam-nugget and nugget-assign (failures
recorded, never read as 0), derives Rubric-Qrels (`--min-grade 4`) and the Rubric-Cover@10
leaderboards with Kendall τ against the human leaderboard, then edits one nugget and re-grades
only the stale cells. Prints one JSON object: per step the calls, cache hits, failures and
seconds; per label set the τ; for the edit the calls it cost and how the leaderboard moved.

Usage: python -m benchmarks.bench_banks [--db FILE] [--model PATH.gguf] [--limit N] [--topic Q …]
(`--db` keeps the project for inspection; a second run on it costs no model call.)
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from studio.domain.judge_results import JudgeSummaryDict
from studio.domain.judging import JudgeConfig, JudgeProgress, JudgeSummary
from studio.services.judging.run import run_judge
from studio.services.project import Project
from studio.services.rubric.editing import BankEditor
from studio.services.rubric.generation import generate_bank

MEASURE = "nDCG@10"
GRADING = (
    ("exam-question", "gen-questions", "exam-q"),
    ("exam-nugget", "gen-nuggets", "exam-n"),
    ("nugget-assign", "gen-nuggets", "assign"),
)


def generate(project: Project, kind: str, name: str, model: str | None, topics: list[str] | None) -> dict[str, Any]:
    start = time.perf_counter()
    config = JudgeConfig(method="generate", backend="llamacpp", name=name, model=model, topics=topics)
    summary = [e for e in generate_bank(project.db, config, kind, replace=True)][-1]
    assert not isinstance(summary, JudgeProgress)  # what was made comes last
    per_topic = {row["qid"]: 0 for row in project.topics() if not topics or row["qid"] in topics}
    for item in BankEditor(project.db, name).items():
        per_topic[item["qid"]] = per_topic.get(item["qid"], 0) + 1
    return {
        "bank": name,
        "calls": summary["calls"],
        "cache_hits": summary["cache_hits"],
        "items": summary["items"],
        "items_per_topic": per_topic,
        "topics_without_items": summary["topics_without_items"],
        "seconds": round(time.perf_counter() - start, 1),
    }


def judge(project: Project, config: JudgeConfig, stale_only: bool = False) -> JudgeSummaryDict:
    summary = [e for e in run_judge(project.db, config, stale_only=stale_only)][-1]
    assert isinstance(summary, JudgeSummary)
    for name in [config.name, *(summary.derived_updated or [])]:
        project.engine.forget_labels(name)
    return summary.as_dict()


def tau(project: Project, label_set: str) -> float | None:
    value = project.correlation("human", label_set, MEASURE)["kendall_tau"]
    return None if value is None else round(float(value), 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", type=Path, help="keep the project in this file")
    parser.add_argument("--model", help="a GGUF file (default: the bundled SmolLM2-135M-Instruct)")
    parser.add_argument("--limit", type=int, help="grade at most this many pairs per method")
    parser.add_argument("--topic", action="append", help="only these topics")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        path = args.db or Path(scratch) / "banks.duckdb"
        project = Project.sample(path) if not path.exists() else Project.open(path)
        figures: dict[str, Any] = {
            "benchmark": "banks",
            "measure": MEASURE,
            "generate": {},
            "grade": {},
            "tau_against_human": {},
        }
        for kind in ("question", "nugget", "subtopic"):
            figures["generate"][kind] = generate(project, kind, f"gen-{kind}s", args.model, args.topic)
        for method, bank, name in GRADING:
            config = JudgeConfig(
                method=method,
                backend="llamacpp",
                name=name,
                bank=bank,
                model=args.model,
                topics=args.topic,
                limit=args.limit,
            )
            figures["grade"][name] = judge(project, config)
        banks = {name: bank for _, bank, name in GRADING}
        figures["grade_distribution"] = {}
        for name in ("exam-q", "exam-n"):
            grades = [g for docs in project.engine.evaluator(name).labels.values() for g in docs.judged.values()]
            figures["grade_distribution"][f"best-item-grade-of-{name}"] = {
                f"{g:g}": grades.count(g) for g in sorted(set(grades))
            }
            # The published threshold is 4; lower ones show what a weaker grader still separates.
            for threshold in (4, 3, 2, 1):
                derived = f"rubric-qrels-of-{name}" + ("" if threshold == 4 else f"-t{threshold}")
                project.derive(name, banks[name], "rubric-qrels", derived, min_grade=threshold, replace=True)
                figures["tau_against_human"][derived] = tau(project, derived)
                cover = project.cover_leaderboard(name, banks[name], k=10, ref="human", min_grade=threshold)
                figures["tau_against_human"][f"rubric-cover@10-of-{name}-t{threshold}"] = cover.get("kendall_tau")
        figures["tau_against_human"]["nugget-all-of-assign"] = tau(project, "assign")

        # Edit one nugget: only its cells are re-graded, and the derived leaderboard follows.
        editor = BankEditor(project.db, "gen-nuggets", person="bench")
        nugget = editor.items()[0]
        watched = {"exam-n": "rubric-qrels-of-exam-n-t2", "assign": "assign"}
        before = {name: project.leaderboard(board, MEASURE) for name, board in watched.items()}
        editor.edit(nugget["item_id"], text=nugget["text"] + " (as the passage states it)", note="benchmark edit")
        figures["edit_one_nugget"] = {"item": nugget["item_id"], "text": nugget["text"]}
        for method, bank, name in GRADING[1:]:
            stale = project.stale_cells(name)
            regraded = judge(
                project,
                JudgeConfig(
                    method=method,
                    backend="llamacpp",
                    name=name,
                    bank=bank,
                    model=args.model,
                    topics=args.topic,
                    limit=args.limit,
                ),
                stale_only=True,
            )
            after = project.leaderboard(watched[name], MEASURE)
            figures["edit_one_nugget"][name] = {
                "stale_cells_listed": len(stale),
                "calls": regraded["calls"],
                "stale_cells": regraded["stale_cells"],
                "kept_cells": regraded["kept_cells"],
                "derived_updated": regraded["derived_updated"],
                "leaderboard": watched[name],
                "largest_run_score_change": round(max(abs(after[r] - before[name].get(r, 0.0)) for r in after), 4),
                "tau_after_edit": tau(project, watched[name]),
            }
        project.close()
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
