"""The prompt-sensitivity study over linked label sets (thesis §4.3, Table 4.5 and Figs. 4.6–4.8).

Each label set linked to a prompt, a model and a test collection is one cell. Its agreement with
the reference, on the pairs both label: Cohen's κ (unweighted) for binary — each side binarised
at its own relevance level (the reference's `ref_relevant`, e.g. 2 on TREC DL; the judge's
`relevant`, 1 for a 0/1 judge) — and for graded, on the grades; for pairwise, the share of pairs
on which the judge prefers the passage the reference grades higher in both orders (a pair whose
orders disagree is a tie and counts against). With a level to binarise the reference at, graded
κ is between that binarised reference and the judge's grades as they are (the thesis's Table 4.5).
Cells are grouped per model × author group × method × test collection (or, pooled, over every
collection): the mean and the variance of their agreement (population, n, or sample,
n − 1, as asked; the report says which). Krippendorff's α is taken between the prompts of each
group (each prompt a coder, each judged pair a unit; nominal for binary and pairwise, ordinal for
graded). Lexical diversity per group, method and message: the type-token ratio of the group's
messages pooled, and the mean pairwise Jaccard distance between the messages' word sets.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from studio.domain.errors import UsageError
from studio.domain.prompt_study import (
    LexicalDiversity,
    PreferenceRow,
    StudyAlpha,
    StudyCell,
    StudyGroup,
    StudyOptions,
    StudyPrompt,
    StudyReport,
    Variance,
)
from studio.metrics.agreement import binary_kappa, cohen_kappa
from studio.metrics.reliability import Level, krippendorff_alpha
from studio.services.evaluation.engine import EvaluationEngine
from studio.services.meta.rank_correlation import correlation
from studio.services.sensitivity.study_table import POOLED_SEPARATOR, table_rows
from studio.store import labels as label_store
from studio.store import prompt_collections as prompt_store
from studio.store import runs as run_store

REFERENCE_GROUP = "reference"
DEFAULT_OPTIONS = StudyOptions()
_WORD = re.compile(r"\w+")


def finite(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def pointwise_agreement(
    ref: dict[str, dict[str, float]],
    labels: dict[str, dict[str, float]],
    method: str,
    ref_relevant: float,
    relevant: float,
    binarise_ref: float | None = None,
) -> tuple[float | None, int]:
    """κ on the pairs both label, and how many there are; graded κ against the reference binarised
    at `binarise_ref` (the judge's grades as they are) when it is given."""
    shared = [(g, labels[q][d]) for q, docs in ref.items() for d, g in docs.items() if d in labels.get(q, {})]
    if not shared:
        return None, 0
    x = np.array([a for a, _ in shared], dtype=np.float64)
    y = np.array([b for _, b in shared], dtype=np.float64)
    if method == "binary":
        kappa = binary_kappa(x, y, ref_relevant, relevant)
    elif binarise_ref is not None:
        kappa = cohen_kappa((x >= binarise_ref).astype(np.float64), y)
    else:
        kappa = cohen_kappa(x, y)
    return finite(kappa), len(shared)


def pairwise_agreement(rows: Sequence[PreferenceRow]) -> float | None:
    """The share of pairs the judge orders as the reference in both orders."""
    return sum(r.verdict == "agree" for r in rows) / len(rows) if rows else None


def position_bias(rows: Sequence[PreferenceRow]) -> float | None:
    """Among the raw answers kept (both orders), the share that chose the passage shown first."""
    answers = [a for r in rows for a in (r.a_first, r.b_first) if a is not None]
    return sum(a == 1.0 for a in answers) / len(answers) if answers else None


def tie_rate(rows: Sequence[PreferenceRow]) -> float | None:
    return sum(r.verdict == "tie" for r in rows) / len(rows) if rows else None


def variance_of(values: Sequence[float], kind: Variance) -> float | None:
    """Population (divisor n) or sample (divisor n − 1) variance; None when undefined."""
    ddof = 0 if kind == "population" else 1
    if len(values) <= ddof:
        return None
    return float(np.var(np.array(values, dtype=np.float64), ddof=ddof))


def _grades(engine: EvaluationEngine, name: str) -> dict[str, dict[str, float]]:
    return {q: dict(t.judged) for q, t in engine.evaluator(name).labels.items()}


def _leaderboard_tau(
    engine: EvaluationEngine, ref: str, name: str, measure: str, method: str, relevant: float
) -> float | None:
    """Kendall τ of the runs' leaderboard under `name` against `ref`'s, on the topics both label."""
    if not run_store.run_names(engine.db.cursor()):
        return None
    try:
        found = correlation(
            engine, ref, name, measure, details=False, llm_relevant=relevant if method == "binary" else None
        )
    except UsageError:
        return None
    return found["kendall_tau"]


def study_cells(
    engine: EvaluationEngine,
    ref: str,
    links: Iterable[dict[str, Any]],
    *,
    options: StudyOptions,
    measure: str,
) -> list[StudyCell]:
    """One cell per linked label set."""
    reference = _grades(engine, ref)
    con = engine.db.cursor()
    cells: list[StudyCell] = []
    for link in links:
        name, method = link["label_set"], link["method"]
        bias = ties = tau = None
        if method == "pairwise":
            set_id = label_store.label_set_id(con, name)
            assert set_id is not None
            rows = prompt_store.verdicts(con, set_id)
            value, pairs = pairwise_agreement(rows), len(rows)
            bias, ties = position_bias(rows), tie_rate(rows)
        else:
            value, pairs = pointwise_agreement(
                reference, _grades(engine, name), method, options.ref_relevant, options.relevant, options.binarise_ref
            )
            tau = _leaderboard_tau(engine, ref, name, measure, method, options.relevant)
        cells.append(
            StudyCell(
                label_set=name,
                prompt=link["prompt_id"],
                group=link["author_group"],
                model=link["model"],
                method=method,
                collection=link["test_collection"],
                agreement=value,
                pairs=pairs,
                kendall_tau=tau,
                position_bias=bias,
                tie_rate=ties,
            )
        )
    return cells


def pooled_collections(cells: Iterable[StudyCell]) -> str:
    """The name a pooled group's collection column carries: its collections joined by `+`."""
    return POOLED_SEPARATOR.join(sorted({c["collection"] for c in cells if c["group"] != REFERENCE_GROUP}))


def _group_key(cell: StudyCell, pooled: str | None = None) -> tuple[str, str, str, str]:
    return (cell["model"], cell["group"], cell["method"], pooled or cell["collection"])


def study_groups(cells: Sequence[StudyCell], kind: Variance, pool: bool = False) -> list[StudyGroup]:
    """Mean and variance of agreement per model × group × method × collection (reference rows
    apart); pooled, over the cells of every collection."""
    pooled = pooled_collections(cells) if pool else None
    grouped: dict[tuple[str, str, str, str], list[float]] = defaultdict(list)
    counted: dict[tuple[str, str, str, str], int] = defaultdict(int)
    for cell in cells:
        if cell["group"] == REFERENCE_GROUP:
            continue
        counted[_group_key(cell, pooled)] += 1
        if cell["agreement"] is not None:
            grouped[_group_key(cell, pooled)].append(cell["agreement"])
    return [
        StudyGroup(
            model=model,
            group=group,
            method=method,
            collection=collection,
            mean=float(np.mean(grouped[key])) if grouped[key] else None,
            variance=variance_of(grouped[key], kind),
            cells=counted[key],
        )
        for key in sorted(counted)
        for model, group, method, collection in [key]
    ]


def _coded(engine: EvaluationEngine, cell: StudyCell) -> dict[tuple[str, ...], float]:
    """What a prompt said per unit: a pointwise grade per pair, a pairwise verdict per pair of passages."""
    if cell["method"] != "pairwise":
        return {(q, d): g for q, docs in _grades(engine, cell["label_set"]).items() for d, g in docs.items()}
    set_id = label_store.label_set_id(engine.db.cursor(), cell["label_set"])
    assert set_id is not None
    codes = {"agree": 1.0, "disagree": -1.0, "tie": 0.0}
    return {(r.qid, r.doc_a, r.doc_b): codes[r.verdict] for r in prompt_store.verdicts(engine.db.cursor(), set_id)}


def study_alpha(engine: EvaluationEngine, cells: Sequence[StudyCell], pool: bool = False) -> list[StudyAlpha]:
    """Krippendorff's α between the prompts of each group (needs two prompts or more); pooled, a
    prompt codes the units of every collection."""
    pooled = pooled_collections(cells) if pool else None
    grouped: dict[tuple[str, str, str, str], dict[str, list[StudyCell]]] = defaultdict(lambda: defaultdict(list))
    for cell in cells:
        if cell["group"] != REFERENCE_GROUP:
            grouped[_group_key(cell, pooled)][cell["prompt"]].append(cell)
    found: list[StudyAlpha] = []
    for (model, group, method, collection), by_prompt in sorted(grouped.items()):
        members = list(by_prompt.values())
        if len(members) < 2:
            continue
        coded = [{u: g for cell in prompt_cells for u, g in _coded(engine, cell).items()} for prompt_cells in members]
        units = sorted(set().union(*coded))
        level: Level = "ordinal" if method == "graded" else "nominal"
        data = np.array([[c.get(u, np.nan) for u in units] for c in coded], dtype=np.float64)
        alpha = finite(krippendorff_alpha(data, level)) if units else None
        found.append(
            StudyAlpha(
                model=model,
                group=group,
                method=method,
                collection=collection,
                alpha=alpha,
                level=level,
                prompts=len(members),
                units=len(units),
            )
        )
    return found


def words(text: str) -> list[str]:
    """Lower-cased word tokens; placeholders count as the words they name."""
    return _WORD.findall(text.lower())


def type_token_ratio(texts: Sequence[str]) -> float | None:
    """Distinct words over words, of the texts pooled."""
    tokens = [w for t in texts for w in words(t)]
    return len(set(tokens)) / len(tokens) if tokens else None


def mean_jaccard_distance(texts: Sequence[str]) -> float | None:
    """The mean over pairs of texts of 1 − |A ∩ B| / |A ∪ B| of their word sets."""
    sets = [set(words(t)) for t in texts]
    distances = [1 - len(a & b) / len(a | b) for a, b in itertools.combinations(sets, 2) if a | b]
    return float(np.mean(distances)) if distances else None


def lexical_diversity(prompts: Sequence[StudyPrompt]) -> list[LexicalDiversity]:
    """Per author group, method and message (system, user)."""
    grouped: dict[tuple[str, str], list[StudyPrompt]] = defaultdict(list)
    for prompt in prompts:
        grouped[(prompt.group, prompt.method)].append(prompt)
    rows: list[LexicalDiversity] = []
    for (group, method), members in sorted(grouped.items()):
        for message in ("system", "user"):
            texts = [p.system if message == "system" else p.user for p in members]
            rows.append(
                LexicalDiversity(
                    group=group,
                    method=method,
                    message=message,
                    prompts=len(members),
                    type_token_ratio=type_token_ratio(texts),
                    jaccard_distance=mean_jaccard_distance(texts),
                )
            )
    return rows


def study_report(
    engine: EvaluationEngine,
    ref: str,
    *,
    options: StudyOptions = DEFAULT_OPTIONS,
    collection: str | None = None,
    references: Sequence[str] = (),
    measure: str = "nDCG@10",
) -> StudyReport:
    """The study over every label set linked to a prompt (of `collection`, when given); `references`
    are label sets shown as reference rows (UMBRELA's), outside the groups."""
    con = engine.db.cursor()
    if label_store.label_set_id(con, ref) is None:
        raise UsageError(f"no label set named {ref!r} (the reference)")
    links = [link for link in prompt_store.linked_label_sets(con) if collection in (None, link["collection"])]
    if not links:
        raise UsageError("no label set is linked to a prompt (studio import qrels --prompt, or studio sensitivity run)")
    for name in references:
        if label_store.label_set_id(con, name) is None:
            raise UsageError(f"no label set named {name!r} (a reference row)")
    extra = [
        {
            "label_set": n,
            "prompt_id": n,
            "author_group": REFERENCE_GROUP,
            "model": "-",
            "method": m,
            "test_collection": "-",
        }
        for n in references
        for m in sorted({link["method"] for link in links} - {"pairwise"})
    ]
    cells = study_cells(engine, ref, [*links, *extra], options=options, measure=measure)
    collections = sorted({link["collection"] for link in links})
    prompts = [p for c in collections for p in prompt_store.collection_prompts(con, c)]
    groups = study_groups(cells, options.variance, options.pool_collections)
    return StudyReport(
        ref=ref,
        variance=options.variance,
        ref_relevant=options.ref_relevant,
        relevant=options.relevant,
        binarise_ref=options.binarise_ref,
        pool_collections=options.pool_collections,
        cells=cells,
        groups=groups,
        table=table_rows(groups),
        alpha=study_alpha(engine, cells, options.pool_collections),
        lexical_diversity=lexical_diversity(prompts),
    )
