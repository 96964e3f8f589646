"""The report's sections on generated answers (present only when a label set holds verdicts on them):
one bar chart per method, the systems in one order (by name) with 95% bootstrap intervals over
topics, as the Gen-IR comparison draws them; with embeddings, the answers on the runs' scale."""

from __future__ import annotations

from studio.domain.answer_results import RunsScale
from studio.domain.errors import UsageError
from studio.domain.report import Cell, Figure, Interval, Section, Table
from studio.judges.embedder import TextEmbedder
from studio.services.facade.core import ProjectCore
from studio.services.report.answer_figures import method_bars, runs_scale_scatter
from studio.services.report.cells import FigureNames, statistic

TEXT = (
    "Each label set holding verdicts on generated answers scores the systems as Arabzadeh & Clarke's "
    "comparison does (`studio answers`): binary, the share of topics judged relevant; graded, the mean gain "
    "2^g − 1; subtopics, yes / (k + 1); preferences, the share of topics won against the exemplar; embedding, "
    "the mean cosine to the topic's Best passages; a tournament, Bradley–Terry ratings on the Elo scale. "
    "Intervals: 95% percentile bootstrap over topics, 1,000 resamples, seed 0. Systems in the same order "
    "in every chart."
)
AXES = {
    "binary": "share of topics relevant",
    "graded": "mean gain (2^g − 1)",
    "subtopics": "yes / (k + 1)",
    "preferences": "share of topics won",
    "embedding": "mean cosine to Best passages",
    "tournament": "Elo rating",
}
Bars = list[tuple[str, float | None, float | None, float | None]]


def answer_sections(
    project: ProjectCore,
    reference: str,
    measure: str,
    names: FigureNames,
    *,
    with_embeddings: bool = False,
    embedder: TextEmbedder | None = None,
) -> list[Section]:
    """The answers' section when some label set judges answers, and the runs' scale with embeddings."""
    sets = project.answer_sets()
    if not sets:
        return []
    boards = {name: _board(project, name) for name in sets}
    systems = sorted({system for _, bars in boards.values() for system, *_ in bars})
    figures: list[Figure] = []
    rows: list[dict[str, Cell]] = []
    for name, (method, found) in boards.items():
        scored = {system: (score, low, high) for system, score, low, high in found}
        ordered: Bars = [(s, *scored.get(s, (None, None, None))) for s in systems]
        caption = f"{name} ({method}): each system's score with its 95% bootstrap interval"
        baseline = 1500.0 if method == "tournament" else 0.0  # Elo: above or below the average player
        figures.append(
            method_bars(names("answers", name), caption, f"{name}: {method}", AXES[method], ordered, baseline)
        )
        rows += [
            {"label set": name, "method": method, "system": s, "score": v, "95% interval": Interval(lo, hi)}
            for s, v, lo, hi in ordered
            if v is not None
        ]
    table = Table(
        title="Systems by method", columns=["label set", "method", "system", "score", "95% interval"], rows=rows
    )
    sections = [Section(key="answers", title="Generated answers", text=TEXT, tables=[table], figures=figures)]
    if with_embeddings:
        sections += _scale_section(project, reference, measure, names, embedder)
    return sections


def _board(project: ProjectCore, name: str) -> tuple[str, Bars]:
    """(method, [(system, score, low, high)]) of one answers label set."""
    try:
        rows = project.answer_scores([name])
    except UsageError:  # a tournament: its ratings
        found = project.answer_tournament(name)
        return "tournament", [(r["system"], r["elo"], r["elo_low"], r["elo_high"]) for r in found["rows"]]
    method = rows[0]["method"] if rows else "graded"
    return method, [(r["system"], statistic(r["score"]), statistic(r["low"]), statistic(r["high"])) for r in rows]


def _scale_section(
    project: ProjectCore, reference: str, measure: str, names: FigureNames, embedder: TextEmbedder | None
) -> list[Section]:
    """Answers on the runs' scale, when the project has runs and the reference a top-grade passage."""
    if not project.runs():
        return []
    try:
        found: RunsScale = project.answers_on_runs_scale(reference, measure=measure, embedder=embedder)
    except UsageError:
        return []
    figure: Figure = runs_scale_scatter(
        names("answers-runs-scale"),
        f"runs' first non-target passage and systems' answers, by similarity to {reference}'s top-grade passages",
        found["measure"],
        found["rows"],
        found["kendall_tau"],
    )
    table = Table(
        title=f"Similarity to {found['targets']} top-grade passages on {found['topics']} topics ({found['model']})",
        columns=["kind", "name", "similarity", found["measure"], "comparisons"],
        rows=[
            {
                "kind": r["kind"],
                "name": r["name"],
                "similarity": statistic(r["similarity"]),
                found["measure"]: statistic(r["measure"]),
                "comparisons": r["comparisons"],
            }
            for r in found["rows"]
        ],
    )
    text = (
        "Each run's first retrieved passage that is not a topic's top-grade passage, and each system's answer, "
        f"by mean cosine similarity to those passages (the thesis, §5.1.4); runs against their {found['measure']} "
        f"under {reference}, the systems as a band. Kendall τ-b between the runs' similarity and {found['measure']}: "
        f"{'undefined' if found['kendall_tau'] is None else format(found['kendall_tau'], '.3f')}."
    )
    return [
        Section(
            key="answers-runs-scale", title="Answers on the runs' scale", text=text, tables=[table], figures=[figure]
        )
    ]
