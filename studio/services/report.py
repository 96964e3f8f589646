"""The project report (`studio report`): what a project holds and how far its label sets can
stand in for the reference, gathered as plain data (`studio.domain.report`) for the writers.

Everything comes from the project file and fixed seeds, and every list is sorted, so the same
project gives the same report byte for byte; the report says nothing about when it was made.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import PurePath, PureWindowsPath
from typing import TYPE_CHECKING, Any

import numpy as np

from studio import __version__
from studio.domain.errors import UsageError
from studio.domain.report import Cell, Figure, Interval, Report, Section, Spread, Table
from studio.metrics.correlation import kendall_tau_b, subsample_tau
from studio.services import report_figures
from studio.services.bank_report import bank_report
from studio.services.bank_view import graders_of
from studio.services.comparison import SUBSAMPLE_TRIALS, aligned_matrices, compare
from studio.services.evaluation import measure_of
from studio.services.probes import probe_summary
from studio.services.project import Project
from studio.store import report as report_store

if TYPE_CHECKING:
    from studio.judges.embedder import TextEmbedder

DEFAULT_REF = "human"
SUBSAMPLING_FRACTIONS = tuple(i / 10 for i in range(1, 11))
TOP_SPURIOUS = 5
LATEST_EDITS = 20
FD_DEPTH = 10
# The review log's actions (review_decisions.action) and how the report heads their columns.
REVIEW_ACTIONS = {"grade": "graded", "accept": "accepted", "reference": "kept reference", "skip": "skipped",
                  "flag": "flagged", "note": "noted", "undo": "undone"}
SEED = 0


def choose_reference(label_sets: Sequence[str], ref: str | None) -> str:
    """`ref` when the project has it; without one, `human`, else the first label set by name."""
    if not label_sets:
        raise UsageError("the project holds no label set to report on (see `studio import qrels`)")
    if ref is None:
        return DEFAULT_REF if DEFAULT_REF in label_sets else sorted(label_sets)[0]
    if ref not in label_sets:
        raise UsageError(f"no label set named {ref!r} for --ref (the project has {', '.join(sorted(label_sets))})")
    return ref


def build_report(project: Project, *, ref: str | None = None, measure: str = "nDCG@10", resamples: int = 1000,
                 with_embeddings: bool = False, embedder: TextEmbedder | None = None) -> Report:
    """Every section of the report, in order; raises UsageError before any work on a bad option.
    `embedder` replaces the default embedding model of the FD section (tests, other models)."""
    label_sets = project.label_sets()
    reference = choose_reference([row["name"] for row in label_sets], ref)
    m = str(measure_of(measure))
    if resamples < 1:
        raise UsageError("--resamples must be at least 1")
    others = sorted(row["name"] for row in label_sets if row["name"] != reference)
    rows = compare(project.engine, reference, others, m, resamples=resamples, seed=SEED) if others else []
    comparisons = {row["qrels"]: row for row in rows}
    boards = {name: _leaderboard(project, name, m) for name in [reference, *others]}
    names = FigureNames()
    sections = [
        data_summary(project, label_sets),
        leaderboards(boards, reference, m),
        comparison_table(comparisons, others, reference, m, resamples),
        alignment_section(comparisons, others, reference, names),
        scatter_section(boards, comparisons, others, reference, m, names),
        subsampling_section(project, others, reference, m, names),
        bank_section(project, reference, m),
        probe_section(project),
        *([embedding_section(project, [reference, *others], reference, m, embedder)] if with_embeddings else []),
        audit_section(project),
    ]
    facts = [("project", PurePath(project.path).name), ("reference label set", reference), ("measure", m),
             ("bootstrap resamples", f"{resamples:,}"), ("seed", str(SEED)), ("made by", f"studio {__version__}")]
    return Report(title=f"Relevance assessment report: {PurePath(project.path).name}", facts=facts,
                  sections=sections)


# -- helpers ----------------------------------------------------------------------------------


def _value(value: Any) -> float | None:
    """A statistic as a cell: NaN (undefined) becomes None, shown as a dash."""
    return None if value is None or (isinstance(value, float) and np.isnan(value)) else float(value)


def _grade(value: float | None) -> str | None:
    # Grades are labels, not statistics: 3 rather than 3.000, fractions exactly.
    return None if value is None else f"{value:g}"


def _source(text: str | None) -> str | None:
    """Where a label set or bank came from, without the folders of the machine that imported it."""
    if text is None or ("/" not in text and "\\" not in text):
        return text  # e.g. `judge:simulated`
    return PureWindowsPath(text).name  # a Windows path splits at slashes and backslashes alike


class FigureNames:
    """File names for figures: label set names made safe for a path, never twice the same."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def __call__(self, prefix: str, label_set: str | None = None) -> str:
        stem = prefix if label_set is None else f"{prefix}-{re.sub(r'[^A-Za-z0-9._-]+', '-', label_set).strip('-.')}"
        name, n = stem, 1
        while name in self.used:
            n += 1
            name = f"{stem}-{n}"
        self.used.add(name)
        return name


def _leaderboard(project: Project, name: str, measure: str) -> dict[str, float | None]:
    return {run: _value(value) for run, value in project.leaderboard(name, measure).items()}


# -- 1. data summary --------------------------------------------------------------------------


def data_summary(project: Project, label_sets: list[dict[str, Any]]) -> Section:
    counts = project.counts()
    tables = [
        Table("Counts", ["what", "count"], [{"what": k.replace("_", " "), "count": v} for k, v in counts.items()]),
        Table("Label sets", ["label set", "kind", "topics", "pairs", "events", "source"],
              [{"label set": r["name"], "kind": r["kind"], "topics": r["topics"], "pairs": r["pairs"],
                "events": r["events"], "source": _source(r["source"])} for r in label_sets]),
        Table("Runs", ["run", "topics", "rows"],
              [{"run": r["name"], "topics": r["topics"], "rows": r["rows"]} for r in project.runs()],
              empty="no runs loaded"),
        Table("Test banks", ["bank", "topics", "items", "questions", "nuggets", "vital", "okay", "source"],
              [{"bank": r["name"], **{k: r[k] for k in ("topics", "items", "questions", "nuggets", "vital", "okay")},
                "source": _source(r["source"])} for r in project.banks()],
              empty="no test bank loaded"),
        Table("Generated answers", ["system", "topics", "mean characters"],
              [{"system": r["system"], "topics": r["topics"], "mean characters": r["mean_chars"]}
               for r in project.responses()],
              empty="no generated answers loaded"),
        Table("Judge runs", ["run", "label set", "method", "backend", "model", "prompt", "pool", "pairs", "calls",
                             "cache hits", "failures"],
              [{"run": r["run"], "label set": r["label_set"], "method": r["method"], "backend": r["backend"],
                "model": r["model"], "prompt": r["prompt"], "pool": r["pool"], "pairs": r["pairs"],
                "calls": r["calls"], "cache hits": r["cache_hits"], "failures": r["failures"]}
               for r in project.judge_runs()],
              empty="no judge has run"),
    ]
    return Section("data", "Data summary",
                   "What the project file holds: topics, documents, label sets, runs, test banks, generated "
                   "answers and the judge runs that made LLM label sets.", tables)


# -- 2. leaderboards --------------------------------------------------------------------------


def leaderboards(boards: Mapping[str, Mapping[str, float | None]], reference: str, measure: str) -> Section:
    ref_board = boards[reference]
    order = sorted(ref_board, key=lambda run: (ref_board[run] is None, -(ref_board[run] or 0.0), run))
    ref_column = f"{reference} (reference)"
    columns = ["rank", "run", ref_column, *(name for name in boards if name != reference)]
    rows: list[dict[str, Cell]] = []
    for rank, run in enumerate(order, 1):
        row: dict[str, Cell] = {"rank": rank, "run": run, ref_column: ref_board[run]}
        row.update({name: board.get(run) for name, board in boards.items() if name != reference})
        rows.append(row)
    return Section("leaderboards", "Leaderboards",
                   f"Every run's mean {measure} under each label set, ranked by the reference {reference}: a label "
                   "set that can replace the reference keeps this order.",
                   [Table(f"{measure} per run and label set", columns, rows, empty="no runs loaded")])


# -- 3. comparison ----------------------------------------------------------------------------

COMPARISON_COLUMNS = ["label set", "pairs", "κ binary", "κ graded", "Krippendorff α", "Kendall τ", "τ 95% interval",
                      "τ_AP", "τ_AP 95% interval", "Compat τ", "more lenient", "stricter"]


def comparison_row(row: Mapping[str, Any]) -> dict[str, Cell]:
    return {
        "label set": row["qrels"], "pairs": row.get("pairs"),
        "κ binary": _value(row.get("kappa_binary")), "κ graded": _value(row.get("kappa_graded")),
        "Krippendorff α": _value(row.get("krippendorff_alpha")),
        "Kendall τ": _value(row.get("kendall_tau")),
        "τ 95% interval": Interval(_value(row.get("kendall_tau_low")), _value(row.get("kendall_tau_high"))),
        "τ_AP": _value(row.get("tau_ap")),
        "τ_AP 95% interval": Interval(_value(row.get("tau_ap_low")), _value(row.get("tau_ap_high"))),
        "Compat τ": _value(row.get("compat_tau")),
        "more lenient": _value(row.get("more_lenient")), "stricter": _value(row.get("stricter")),
    }


def comparison_table(comparisons: Mapping[str, Mapping[str, Any]], others: list[str], reference: str, measure: str,
                     resamples: int) -> Section:
    rows = [comparison_row(comparisons[name]) for name in others if name in comparisons]
    return Section(
        "comparison", "Comparison with the reference",
        f"How each label set agrees with {reference}: label agreement on the pairs both labelled (Cohen's κ at the "
        f"relevance threshold and on the grades, Krippendorff's ordinal α; the shares it grades higher or lower) "
        f"and how well its {measure} leaderboard reproduces the reference's (Kendall τ-b, τ_AP and τ of the "
        f"Compat leaderboards; intervals: bootstrap over topics, {resamples:,} resamples).",
        [Table("Agreement and rank correlation", COMPARISON_COLUMNS, rows, empty="no other label set to compare")])


# -- 4. alignment -----------------------------------------------------------------------------


def alignment_section(comparisons: Mapping[str, Mapping[str, Any]], others: list[str], reference: str,
                      names: FigureNames) -> Section:
    rows: list[dict[str, Cell]] = []
    figures: list[Figure] = []
    for name in others:
        alignment = (comparisons.get(name) or {}).get("alignment") or {}
        for pair in sorted(alignment, key=_pair_order):
            bucket = alignment[pair]
            rows.append({"label set": name, "category pair": pair.replace("_vs_", " vs "),
                         "pairs": bucket.get("pairs"), "agree": _value(bucket.get("agree")),
                         "tie": _value(bucket.get("tie")), "disagree": _value(bucket.get("disagree"))})
        if alignment:
            figures.append(report_figures.alignment_bars(
                names("alignment", name), f"{name}: agree / tie / disagree with the order of {reference}'s "
                "Best, Acceptable and Unacceptable documents", name, alignment))
    return Section(
        "alignment", "Alignment with the reference order",
        f"Per topic, {reference}'s grades sort documents into Best, Acceptable and Unacceptable; for every pair of "
        "documents from two categories, a label set agrees (orders them the same way), ties or disagrees.",
        [Table("Agree / tie / disagree shares", ["label set", "category pair", "pairs", "agree", "tie", "disagree"],
               rows, empty="no other label set to compare")], figures)


def _pair_order(key: str) -> tuple[int, str]:
    known = report_figures.CATEGORY_PAIRS
    return (known.index(key) if key in known else len(known), key)


# -- 5. τ scatter plots -----------------------------------------------------------------------


def scatter_section(boards: Mapping[str, Mapping[str, float | None]], comparisons: Mapping[str, Mapping[str, Any]],
                    others: list[str], reference: str, measure: str, names: FigureNames) -> Section:
    figures = []
    for name in others:
        points = [(run, value, boards[name].get(run)) for run, value in sorted(boards[reference].items())]
        tau = _value((comparisons.get(name) or {}).get("kendall_tau"))
        figures.append(report_figures.tau_scatter(
            names("tau", name), f"{measure} of each run under {reference} (x) and {name} (y)",
            reference, name, measure, points, tau))
    notes = [] if others else ["There is no other label set to plot against the reference."]
    return Section("scatter", "Run scores against the reference",
                   f"Each run at its {measure} under {reference} and under the audited label set; points on a "
                   "rising line mean the same order (the title gives Kendall τ-b).", figures=figures, notes=notes)


# -- 6. topic subsampling ---------------------------------------------------------------------


def subsampling_section(project: Project, others: list[str], reference: str, measure: str,
                        names: FigureNames) -> Section:
    m = measure_of(measure)
    percent = [f"{f:.0%}" for f in SUBSAMPLING_FRACTIONS]
    rows: list[dict[str, Cell]] = []
    curves: dict[str, list[tuple[float, float | None, float | None]]] = {}
    for name in others:
        ref_matrix, matrix = aligned_matrices(project.engine.evaluator(reference), project.engine.evaluator(name), m)
        topics = int(ref_matrix.shape[0])
        spreads = []
        for fraction in SUBSAMPLING_FRACTIONS:
            if topics == 0:
                spreads.append(Spread(None, None))
                continue
            found = subsample_tau(ref_matrix, matrix, fraction, trials=SUBSAMPLE_TRIALS, seed=SEED)
            spreads.append(Spread(_value(found["mean"]), _value(found["std"])))
        curves[name] = [(f, s.mean, s.std) for f, s in zip(SUBSAMPLING_FRACTIONS, spreads, strict=True)]
        rows.append({"label set": name, "topics": topics, **dict(zip(percent, spreads, strict=True))})
    figures = [report_figures.subsampling_curves(
        names("subsampling"), f"Kendall τ against {reference} on a random share of the topics (mean ± std over "
        f"{SUBSAMPLE_TRIALS} trials)", reference, curves)] if curves else []
    return Section(
        "subsampling", "Topic subsampling",
        f"Kendall τ against {reference} when both {measure} leaderboards are built on a random share of the topics "
        f"both label sets labelled (mean ± standard deviation over {SUBSAMPLE_TRIALS} draws): how many topics a "
        "label set needs before its ranking settles.",
        [Table("Kendall τ by share of the topics", ["label set", "topics", *percent], rows,
               empty="no other label set to compare")], figures)


# -- 7. test banks ----------------------------------------------------------------------------


def bank_section(project: Project, reference: str, measure: str) -> Section:
    summary: list[dict[str, Cell]] = []
    spurious: list[dict[str, Cell]] = []
    for bank in project.banks():
        graders = graders_of(project, bank["name"])
        if not graders:
            summary.append({"bank": bank["name"], "rubric label set": "no rubric judge yet", "items": bank["items"]})
        for source in graders:
            try:
                found = bank_report(project.engine, bank["name"], source, ref=reference, measure=measure)
            except UsageError as error:
                summary.append({"bank": bank["name"], "rubric label set": f"{source}: {error}",
                                "items": bank["items"]})
                continue
            summary.append({
                "bank": bank["name"], "rubric label set": source, "items": len(found["items"]),
                "spurious items": len(found["spurious"]), "uncovered relevant": len(found["uncovered_relevant"]),
                "stale cells": _stale_cells(project, source), "Exam-Binary τ": _value(found["tau_all_items"]),
            })
            spurious.extend({"bank": bank["name"], "rubric label set": source, "topic": item["qid"],
                             "item": item["text"], "covered": item["covered"],
                             "non-relevant covered": item["covered_nonrelevant"]}
                            for item in found["spurious"][:TOP_SPURIOUS])
    return Section(
        "banks", "Test-bank diagnostics",
        f"For each test bank and each rubric judge that graded with it: items, spurious items (covered mostly by "
        f"documents {reference} finds non-relevant), relevant documents no item covers, cells that bank edits made "
        f"stale, and Kendall τ of the Exam-Binary {measure} leaderboard.",
        [Table("Banks and their rubric judges", ["bank", "rubric label set", "items", "spurious items",
                                                "uncovered relevant", "stale cells", "Exam-Binary τ"],
               summary, empty="no test bank loaded"),
         Table(f"Most spurious items (up to {TOP_SPURIOUS} per bank and judge)",
               ["bank", "rubric label set", "topic", "item", "covered", "non-relevant covered"],
               spurious, empty="no spurious item")])


def _stale_cells(project: Project, source: str) -> int | None:
    try:
        return len(project.stale_cells(source))
    except UsageError:  # imported grades: no judge configuration to compare the bank against
        return None


# -- 8. robustness probes ---------------------------------------------------------------------

PROBE_COLUMNS = {"label set": "label_set", "method": "method", "model": "model", "documents": "documents",
                 "failures": "failures", "mean original": "mean_original", "mean perturbed": "mean_perturbed",
                 "mean shift": "mean_shift", "share moved up": "moved_up", "share became relevant": "became_relevant"}


def probe_section(project: Project) -> Section:
    rows = [{column: _cell(row.get(key)) for column, key in PROBE_COLUMNS.items()}
            for row in probe_summary(project.db)]
    rows.sort(key=lambda r: tuple(str(r[c] or "") for c in ("label set", "method", "model")))
    return Section(
        "probes", "Robustness probes",
        "How far each judge's labels move when a passage the reference finds non-relevant is stuffed with the "
        "query's words and a claim of relevance: mean label before and after, and the shares of documents that "
        "moved up or became relevant (newest probe per label set).",
        [Table("Probe results", list(PROBE_COLUMNS), rows, empty="no robustness probe has run yet")])


def _cell(value: Any) -> Cell:
    if value is None or isinstance(value, str | int):
        return value
    if isinstance(value, float | np.floating):
        return _value(float(value))
    return str(value)


# -- 9. embeddings ----------------------------------------------------------------------------


def embedding_section(project: Project, label_sets: list[str], reference: str, measure: str,
                      embedder: TextEmbedder | None = None) -> Section:
    # Imported here: only this section needs the embedding model (torch under sentence-transformers).
    from studio.judges.embedder import Embedder

    model = embedder or Embedder()  # one model for every label set: loaded once
    boards = {name: project.fd_leaderboard(name, k=FD_DEPTH, embedder=model, ref_measure=measure)
              for name in label_sets}
    ref_scores = project.leaderboard(reference, measure)
    values = {name: {row["run"]: _value(row["value"]) for row in board["rows"]} for name, board in boards.items()}
    ref_fd = values[reference]
    # Closest to the reference's relevant documents first, as a leaderboard reads.
    runs = sorted(ref_scores, key=lambda run: (ref_fd.get(run) is None, ref_fd.get(run) or 0.0, run))
    rows: list[dict[str, Cell]] = [{"run": run, **{name: values[name].get(run) for name in label_sets}}
                                   for run in runs]
    taus: list[dict[str, Cell]] = []
    for name, board in boards.items():
        defined = [run for run in runs if values[name].get(run) is not None]
        # Lower FD is better: −FD ranks runs the way the measure does.
        against_ref = kendall_tau_b(np.array([ref_scores[run] for run in defined]),
                                    -np.array([values[name][run] for run in defined], dtype=np.float64))
        taus.append({"label set": name, "relevant documents": board.get("relevant_documents"),
                     f"τ against its own {measure}": _value(board.get("kendall_tau")),
                     f"τ against {reference}'s {measure}": _value(against_ref)})
    model_name = next(iter(boards.values()))["model"] if boards else model.name
    return Section(
        "embeddings", f"Fréchet distance FD@{FD_DEPTH}",
        f"The Fréchet distance between the embeddings ({model_name}) of each run's top {FD_DEPTH} documents and "
        "those of the documents a label set finds relevant (lower is closer): an evaluation that needs no label "
        "on the retrieved documents themselves.",
        [Table(f"FD@{FD_DEPTH} per run and label set", ["run", *label_sets], rows, empty="no runs loaded"),
         Table("Kendall τ of the FD leaderboards (runs ordered by −FD)",
               ["label set", "relevant documents", f"τ against its own {measure}",
                f"τ against {reference}'s {measure}"], taus)])


# -- 10. audit history ------------------------------------------------------------------------


def audit_section(project: Project) -> Section:
    con = project.db.cursor()
    per_person: list[dict[str, Cell]] = [
        {"person": r["person"], "label set": r["qrels"], "edits": r["edits"], "undos": r["undos"],
         "pairs": r["pairs"], "first": r["first"], "last": r["last"]}
        for r in report_store.label_edit_counts(con)]
    latest: list[dict[str, Cell]] = [
        {"time": r["time"], "label set": r["qrels"], "topic": r["qid"], "document": r["docid"],
         "previous": _grade(r["previous"]), "grade": _grade(r["grade"]), "origin": r["origin"],
         "person": r["source"], "note": r["note"]}
        for r in project.label_history(None, LATEST_EDITS)]
    return Section(
        "audit", "Audit history",
        "Who changed which labels: audited edits and undos per person and label set, the newest edits, and the "
        "review log (every decision of the Review screen, skips, flags and notes included).",
        [Table("Edits per person", ["person", "label set", "edits", "undos", "pairs", "first", "last"], per_person,
               empty="no label has been edited"),
         Table(f"Latest edits (newest first, up to {LATEST_EDITS})",
               ["time", "label set", "topic", "document", "previous", "grade", "origin", "person", "note"],
               latest, empty="no label has been edited"),
         review_table(report_store.review_action_counts(con))])


def review_table(counts: list[dict[str, Any]]) -> Table:
    """The review log pivoted: one row per (reference, audited set, person), a column per action."""
    actions = [*REVIEW_ACTIONS, *sorted({r["action"] for r in counts} - set(REVIEW_ACTIONS))]
    headers = {action: REVIEW_ACTIONS.get(action, action) for action in actions}
    rows: dict[tuple[str, str, str | None], dict[str, Cell]] = {}
    totals: dict[tuple[str, str, str | None], int] = {}
    for r in counts:
        key = (r["ref"], r["qrels"], r["person"])
        row = rows.setdefault(key, {"reference set": r["ref"], "audited set": r["qrels"], "person": r["person"],
                                    **dict.fromkeys(headers.values(), 0)})
        row[headers[r["action"]]] = int(r["decisions"])
        totals[key] = totals.get(key, 0) + int(r["decisions"])
        row["total"] = totals[key]
    return Table("Review log: decisions per review and person",
                 ["reference set", "audited set", "person", *headers.values(), "total"],
                 list(rows.values()), empty="no review decision yet")
