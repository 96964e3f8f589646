"""The project report (`studio report`): what a project holds and how far its label sets can
stand in for the reference, gathered as plain data (`studio.domain.report`) for the writers.

Everything comes from the project file and fixed seeds, and every list is sorted, so the same
project gives the same report byte for byte; the report says nothing about when it was made.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath

from studio import __version__
from studio.domain.errors import UsageError
from studio.domain.frames import EVERY_TOPIC, TopicChoice, TopicScope
from studio.domain.prompt_study import StudyOptions
from studio.domain.report import Report
from studio.judges.embedder import TextEmbedder
from studio.metrics.names import Measure
from studio.services.evaluation.engine import measure_of
from studio.services.facade.core import ProjectCore
from studio.services.meta.comparison import compare
from studio.services.report.answer_section import answer_sections
from studio.services.report.campaign_section import campaign_section
from studio.services.report.cells import FigureNames, statistic
from studio.services.report.comparison_sections import (
    SEED,
    alignment_section,
    comparison_table,
    leaderboards,
    scatter_section,
    subsampling_section,
)
from studio.services.report.data_section import data_summary
from studio.services.report.ensemble_section import ensemble_section
from studio.services.report.partial_audit_sections import calibration_sections, estimate_sections
from studio.services.report.project_sections import (
    audit_section,
    bank_section,
    embedding_section,
    probe_section,
)
from studio.services.report.significance_section import significance_section
from studio.services.report.study_section import study_section

DEFAULT_REF = "human"


def choose_reference(label_sets: Sequence[str], ref: str | None) -> str:
    """`ref` when the project has it; without one, `human`, else the first label set by name."""
    if not label_sets:
        raise UsageError("the project holds no label set to report on (see `studio import qrels`)")
    if ref is None:
        return DEFAULT_REF if DEFAULT_REF in label_sets else sorted(label_sets)[0]
    if ref not in label_sets:
        raise UsageError(f"no label set named {ref!r} for --ref (the project has {', '.join(sorted(label_sets))})")
    return ref


def conventions(measure: Measure) -> list[tuple[str, str]]:
    """How the report's leaderboards are computed: the conventions a reader needs to reproduce them."""
    compat = (
        "compatibility (τ compat): Clarke's compatibility.py — runs by score as a double, ties by docid "
        "ascending; RBO over ranks 1–1000; topics without a positive grade not averaged"
    )
    if measure.name == "Compat":
        return [("conventions", compat)]
    rel = f"grade ≥ {measure.rel:g}"
    return [
        ("tie order", "trec_eval's: score in single precision descending, ties by docid descending"),
        ("topics averaged", "those each run retrieved (trec_eval without -c; --complete is not used)"),
        ("relevance level", f"binary measures count {rel}"),
        ("gains", "the grades themselves (negative grades count 0)"),
        ("compatibility", compat),
    ]


def topics_fact(topics: TopicChoice) -> str:
    """Which topics the comparisons stand on, as the report's facts say it."""
    scope = (
        "each label set on its own labelled topics (--topics own)"
        if topics.scope is TopicScope.own
        else "those each label set and the reference both label"
    )
    subset = topics.describe_subset()
    return scope + (f", within {subset}" if subset else "")


def own_board(project: ProjectCore, name: str, measure: str, topics: TopicChoice) -> dict[str, float | None]:
    """{run: mean} under label set `name` over the topics it labels (within the chosen subset)."""
    rows = project.evaluate(name, [measure], topics=topics.subset)
    return {row["run"]: statistic(row["value"]) for row in rows}


def build_report(
    project: ProjectCore,
    *,
    ref: str | None = None,
    measure: str = "nDCG@10",
    resamples: int = 1000,
    with_embeddings: bool = False,
    embedder: TextEmbedder | None = None,
    topics: TopicChoice = EVERY_TOPIC,
    study: StudyOptions | None = None,
) -> Report:
    """Every section of the report, in order; raises UsageError before any work on a bad option.
    `embedder` replaces the default embedding model of the FD section (tests, other models);
    `topics`: the comparisons' topics (by default those both label) and a subset of them."""
    label_sets = project.label_sets()
    reference = choose_reference([row["name"] for row in label_sets], ref)
    m = str(measure_of(measure))
    if resamples < 1:
        raise UsageError("--resamples must be at least 1")
    others = sorted(row["name"] for row in label_sets if row["name"] != reference)
    rows = (
        compare(project.engine, reference, others, m, topics=topics, resamples=resamples, seed=SEED) if others else []
    )
    comparisons = {row["qrels"]: row for row in rows}
    boards = {name: own_board(project, name, m, topics) for name in [reference, *others]}
    names = FigureNames()
    sections = [
        data_summary(project, label_sets),
        leaderboards(boards, reference, m),
        comparison_table(comparisons, others, reference, m, resamples),
        alignment_section(comparisons, others, reference, names),
        scatter_section(project.engine, comparisons, others, reference, m, topics, names),
        *significance_section(project, reference, others, m, names, topics),
        subsampling_section(project.engine, others, reference, m, topics, names),
        bank_section(project, reference, m),
        probe_section(project),
        *study_section(project, reference, names, study),
        *([embedding_section(project, [reference, *others], reference, m, embedder)] if with_embeddings else []),
        audit_section(project),
        *estimate_sections(project, m),
        *calibration_sections(project),
        *ensemble_section(project, reference, m, topics),
        *campaign_section(project, m, names),
        *answer_sections(project, reference, m, names, with_embeddings=with_embeddings, embedder=embedder),
    ]
    facts = [
        ("project", PurePath(project.path).name),
        ("reference label set", reference),
        ("measure", m),
        ("topics compared", topics_fact(topics)),
        *conventions(measure_of(m)),
        ("bootstrap resamples", f"{resamples:,}"),
        ("seed", str(SEED)),
        ("made by", f"studio {__version__}"),
    ]
    return Report(title=f"Relevance assessment report: {PurePath(project.path).name}", facts=facts, sections=sections)
