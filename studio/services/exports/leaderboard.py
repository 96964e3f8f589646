"""A leaderboard (the rows of `studio eval`) as JSON, TSV or CSV, or in the layouts the evaluation
tools write (`studio.formats.leaderboard_layouts`): trec_eval, tot, ir_measures, JSONL, LaTeX."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from studio.domain.choices import DEFAULT_MEASURES, LeaderboardLayout
from studio.domain.comparisons import EvalRow
from studio.domain.errors import UsageError
from studio.domain.export_report import ExportReport
from studio.domain.json_text import json_text
from studio.domain.significance import SignificancePlan
from studio.domain.significance_matrix import beaten_runs
from studio.formats import leaderboard_layouts as layouts
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.services.exports.delivery import deliver
from studio.services.significance.pairs import significance

# The layout a file name asks for, by its ending (a .gz after it aside); JSON otherwise.
_BY_SUFFIX = {
    ".tsv": LeaderboardLayout.tsv,
    ".csv": LeaderboardLayout.csv,
    ".jsonl": LeaderboardLayout.jsonl,
    ".tex": LeaderboardLayout.latex,
}
_TABLES = (LeaderboardLayout.json, LeaderboardLayout.tsv, LeaderboardLayout.csv)


def layout_for_name(name: str) -> LeaderboardLayout:
    stem = name.lower().removesuffix(".gz")
    return next((layout for suffix, layout in _BY_SUFFIX.items() if stem.endswith(suffix)), LeaderboardLayout.json)


def render_table(rows: Sequence[EvalRow], fmt: LeaderboardLayout) -> str:
    """JSON exactly as `studio eval --format json` prints it; TSV/CSV with full-precision values."""
    if fmt is LeaderboardLayout.json:
        return json_text(list(rows), indent=2) + "\n"
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t" if fmt is LeaderboardLayout.tsv else ",", lineterminator="\n")
    columns = list(rows[0]) if rows else ["run", "measure", "value", "topics"]
    writer.writerow(columns)
    writer.writerows([[_cell(row.get(c)) for c in columns] for row in rows])
    return out.getvalue()


def _cell(value: Any) -> str:
    # repr keeps every bit of a float, so a spreadsheet and the JSON agree exactly.
    return "" if value is None else repr(value) if isinstance(value, float) else str(value)


def score_rows(rows: Sequence[EvalRow]) -> list[layouts.ScoreRow]:
    """`studio eval` rows as the tools' layouts hold them, a run's values together (the mean under
    the topic `all`)."""
    found = [
        layouts.ScoreRow(row["run"], row["measure"], row.get("topic", layouts.MEAN_TOPIC), row["value"]) for row in rows
    ]
    order = {run: index for index, run in enumerate(dict.fromkeys(row.run for row in found))}
    return sorted(found, key=lambda row: order[row.run])  # stable: measures and topics keep their order


def render(rows: Sequence[EvalRow], layout: LeaderboardLayout, marks: layouts.SignificanceMarks | None = None) -> str:
    """The leaderboard's text in `layout` (a LaTeX table with `marks`: its significant differences)."""
    if layout is LeaderboardLayout.latex:
        return layouts.write_latex(score_rows(rows), marks)
    if layout in _TABLES:
        return render_table(rows, layout)
    values = score_rows(rows)
    if layout is LeaderboardLayout.trec_eval:
        topics = {row["run"]: row["topics"] for row in rows if row.get("topic", layouts.MEAN_TOPIC) == "all"}
        return layouts.write_trec_eval(values, topics)
    writers = {
        LeaderboardLayout.tot: layouts.write_tot,
        LeaderboardLayout.ir_measures: layouts.write_ir_measures,
        LeaderboardLayout.jsonl: layouts.write_jsonl,
    }
    return writers[layout](values)


TEST_NAMES = {
    "t": "paired t-test",
    "randomization": "paired randomization test",
    "bootstrap": "paired bootstrap test",
    "tukey": "randomised Tukey HSD",
}
CORRECTION_NAMES = {
    "holm": "Holm's correction",
    "bh": "Benjamini-Hochberg correction",
    "bonferroni": "Bonferroni correction",
    "none": "no correction",
}


def significance_marks(
    engine: EvaluationEngine, label_set: str, measures: Sequence[str], plan: SignificancePlan
) -> layouts.SignificanceMarks:
    """Per measure, the runs each run is significantly better than under `label_set`."""
    beaten = {str(measure_of(m)): beaten_runs(significance(engine, label_set, m, plan)) for m in measures}
    how = f"{TEST_NAMES.get(plan.test, plan.test)}, {CORRECTION_NAMES.get(plan.correction, plan.correction)}"
    return layouts.SignificanceMarks(beaten, how, plan.alpha)


def export_leaderboard(
    engine: EvaluationEngine,
    label_set: str,
    measures: Sequence[str] | None,
    path: str | Path,
    fmt: LeaderboardLayout | str | None = None,
    *,
    per_topic: bool = False,
    complete: bool = False,
    significance: SignificancePlan | None = None,
) -> ExportReport:
    """The rows of `studio eval` under a label set; the layout defaults to the file name's. With
    `significance`, a LaTeX table marks each run's significant differences, as ranx does."""
    try:
        chosen = layout_for_name(str(path)) if fmt is None else LeaderboardLayout(fmt)
    except ValueError:
        known = ", ".join(layout.value for layout in LeaderboardLayout)
        raise UsageError(f"unknown leaderboard format {fmt!r} ({known})") from None
    if per_topic and chosen is LeaderboardLayout.latex:
        raise UsageError("a LaTeX table holds the means only: drop --per-topic")
    if significance is not None and chosen is not LeaderboardLayout.latex:
        raise UsageError(f"--significance marks a LaTeX table, not {chosen.value}: use --as latex (or a .tex name)")
    if significance is not None and complete:
        raise UsageError("the tests compare runs on the topics both retrieved: drop --complete with --significance")
    chosen_measures = list(measures or DEFAULT_MEASURES)
    rows = engine.eval_rows(label_set, chosen_measures, per_topic=per_topic, complete=complete)
    marks = None if significance is None else significance_marks(engine, label_set, chosen_measures, significance)
    target = deliver(render(rows, chosen, marks), path)
    counts = {"runs": len({row["run"] for row in rows}), "rows": len(rows)}
    return ExportReport("leaderboard under", label_set, target, counts)
