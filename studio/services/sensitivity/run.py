"""Running the prompt-sensitivity study: every prompt of a collection × method with a judge, on a
seeded sample of the reference's pairs, each prompt into its own label set linked to its prompt,
model and test collection; then the study's report.

Sampling (the thesis's, for a costly model): up to `per_grade` passages per topic and reference
grade; for pairwise, up to `per_category` pairs per topic from each of highly relevant vs
non-relevant (3-vs-01), relevant vs non-relevant (2-vs-01) and highly relevant vs relevant
(3-vs-2), each pair asked in both orders. Every call goes through the call cache and is stored as
it arrives: a study run again, or killed and restarted, asks only what it has not.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Generator, Iterator, Sequence

from studio.domain.errors import UsageError
from studio.domain.judging import JudgeProgress
from studio.domain.models import QrelsRow
from studio.domain.prompt_study import (
    PAIR_CATEGORIES,
    PreferenceRow,
    StudyOptions,
    StudyPlan,
    StudyPrompt,
    StudyRunSummary,
    Variance,
)
from studio.judges.backend import Backend
from studio.judges.methods import Method, method_with_template
from studio.judges.prompts import PromptTemplate
from studio.services.evaluation.engine import EvaluationEngine
from studio.services.judging.cached_calls import Answers, ask
from studio.services.judging.run import judge_label_set
from studio.services.sensitivity.prompt_collections import collection_prompts, verdict_of
from studio.services.sensitivity.study import study_report
from studio.store import Database, new_batch, pools
from studio.store import labels as label_store
from studio.store import prompt_collections as prompt_store

Grades = dict[str, dict[str, float]]
BackendFor = Callable[[StudyPrompt, str], Backend]  # (prompt, model) → the judge that answers it


def sample_pointwise(reference: Grades, per_grade: int | None, seed: int) -> list[tuple[str, str]]:
    """Up to `per_grade` documents per topic and reference grade, drawn with a seed per (topic, grade)."""
    chosen = []
    for qid in sorted(reference):
        by_grade: dict[float, list[str]] = {}
        for docid, grade in sorted(reference[qid].items()):
            by_grade.setdefault(grade, []).append(docid)
        for grade, docids in sorted(by_grade.items()):
            if per_grade is not None and len(docids) > per_grade:
                docids = random.Random(f"{seed}/{qid}/{grade}").sample(docids, per_grade)
            chosen += [(qid, d) for d in sorted(docids)]
    return chosen


def sample_pairwise(reference: Grades, per_category: int | None, seed: int) -> list[tuple[str, str, str, str]]:
    """(qid, category, better, worse): up to `per_category` pairs per topic and category."""
    chosen = []
    for qid in sorted(reference):
        grades = reference[qid]
        for category, (high, lows) in PAIR_CATEGORIES.items():
            pairs = [
                (a, b)
                for a in sorted(d for d, g in grades.items() if g == high)
                for b in sorted(d for d, g in grades.items() if g in lows)
            ]
            if per_category is not None and len(pairs) > per_category:
                pairs = sorted(random.Random(f"{seed}/{qid}/{category}").sample(pairs, per_category))
            chosen += [(qid, category, a, b) for a, b in pairs]
    return chosen


def answer_space(prompt: StudyPrompt) -> dict[str, object]:
    """A binary prompt that speaks of yes and no is answered Yes/No; any other, 1/0."""
    if prompt.method != "binary" or re.search(r"\byes\b", f"{prompt.system} {prompt.user}", re.IGNORECASE):
        return {}
    return {"answer_labels": ["1", "0"], "answer_values": [1, 0]}


def study_method(collection: str, prompt: StudyPrompt) -> Method:
    """The method asking with the collection's prompt (an empty system message is left out)."""
    template = PromptTemplate(
        f"{collection}/{prompt.prompt_id}/{prompt.method}",
        prompt.user,
        prompt.system or None,
        {"placeholders": ["query", "passage", "passage_a", "passage_b"], **answer_space(prompt)},
    )
    return method_with_template(prompt.method, template)


def label_set_for(plan: StudyPlan, model: str, prompt: StudyPrompt) -> str:
    short = re.sub(r"[^A-Za-z0-9_.-]+", "-", model.rsplit("/", 1)[-1].removesuffix(".gguf")).strip("-") or "model"
    return f"{plan.prefix}-{short}-{prompt.method}-{prompt.prompt_id}"


def run_study(
    engine: EvaluationEngine,
    plan: StudyPlan,
    models: Sequence[str],
    backend_for: BackendFor,
    *,
    variance: Variance = "sample",
    ref_relevant: float = 2.0,
) -> Iterator[JudgeProgress | StudyRunSummary]:
    """Judge the sample with every prompt × model, then report the study over its label sets."""
    db = engine.db
    prompts = [p for p in collection_prompts(db, plan.collection) if p.method in plan.methods]
    if not prompts:
        raise UsageError(f"prompt collection {plan.collection!r} has no {' or '.join(plan.methods)} prompts")
    methods = {id(p): study_method(plan.collection, p) for p in prompts}  # every prompt checked before a call
    reference = {
        q: dict(t.judged)
        for q, t in engine.evaluator(plan.ref).labels.items()
        if plan.topics is None or q in plan.topics
    }
    pointwise = sample_pointwise(reference, plan.per_grade, plan.seed)
    pairwise = sample_pairwise(reference, plan.per_category, plan.seed)
    con = db.cursor()
    queries = pools.topic_texts(con, sorted(reference))
    passages = pools.passage_texts(
        con, sorted({p for p in pointwise} | {(q, d) for q, _, a, b in pairwise for d in (a, b)})
    )
    names, calls, hits, failures = [], 0, 0, 0
    opened: dict[int, Backend] = {}  # a backend may answer several prompts (one model load): closed once
    for model in models:
        for prompt in prompts:
            backend = opened.setdefault(id(found := backend_for(prompt, model)), found)
            judge_model = backend.model if model == "-" else model
            name = label_set_for(plan, judge_model, prompt)
            method = methods[id(prompt)]
            if prompt.method == "pairwise":
                answers, failed = yield from _judge_pairs(db, backend, method, name, pairwise, queries, passages)
            else:
                answers, failed = yield from _judge_points(db, backend, method, name, pointwise, queries, passages)
            set_id = label_store.label_set_id(db.cursor(), name)
            assert set_id is not None
            with db.transaction() as tx:
                prompt_store.link_label_set(
                    tx, set_id, plan.collection, prompt.prompt_id, prompt.method, judge_model, plan.test_collection
                )
            engine.forget_labels(name)
            names.append(name)
            calls, hits, failures = calls + answers.made, hits + answers.cached, failures + failed
    for backend in opened.values():
        backend.close()
    options = StudyOptions(ref_relevant=ref_relevant, variance=variance)
    report = study_report(engine, plan.ref, options=options, collection=plan.collection)
    yield StudyRunSummary(label_sets=names, calls=calls, cache_hits=hits, failures=failures, report=report)


def _judge_points(
    db: Database,
    backend: Backend,
    method: Method,
    name: str,
    pairs: list[tuple[str, str]],
    queries: dict[str, str],
    passages: dict[tuple[str, str], str],
) -> Generator[JudgeProgress, None, tuple[Answers, int]]:
    """Grade each pair; the parsed grades become the label set (a failed answer leaves its pair out)."""
    kept = [(q, d) for q, d in pairs if q in queries and (q, d) in passages]
    requests = [method.request((q, d), query=queries[q], passage=passages[(q, d)]) for q, d in kept]
    answers: Answers = yield from ask(db, backend, requests)
    rows = []
    for index, (qid, docid) in enumerate(kept):
        output = answers.output(index)
        parsed = method.parse(output) if output is not None else None
        if parsed is not None and parsed.label is not None:
            rows.append(QrelsRow(qid, docid, parsed.label))
    _write_labels(db, backend, name, rows)
    return answers, len(pairs) - len(rows)


def _judge_pairs(
    db: Database,
    backend: Backend,
    method: Method,
    name: str,
    pairs: list[tuple[str, str, str, str]],
    queries: dict[str, str],
    passages: dict[tuple[str, str], str],
) -> Generator[JudgeProgress, None, tuple[Answers, int]]:
    """Ask each pair in both orders; the verdicts (with both raw answers) go with the label set."""
    kept = [p for p in pairs if p[0] in queries and (p[0], p[2]) in passages and (p[0], p[3]) in passages]
    requests = []
    for qid, _, a, b in kept:
        text_a, text_b = passages[(qid, a)], passages[(qid, b)]
        requests.append(method.request((qid, a, b), query=queries[qid], passage_a=text_a, passage_b=text_b))
        requests.append(method.request((qid, b, a), query=queries[qid], passage_a=text_b, passage_b=text_a))
    answers: Answers = yield from ask(db, backend, requests)
    rows = []
    for index, (qid, category, a, b) in enumerate(kept):
        first = [answers.output(2 * index + k) for k in (0, 1)]
        parsed = [method.parse(o) if o is not None else None for o in first]
        a_first, b_first = (p.label if p is not None else None for p in parsed)
        verdict = verdict_of(a_first, b_first)
        if verdict is not None:
            rows.append(PreferenceRow(qid, category, a, b, verdict, a_first, b_first))
    set_id = _write_labels(db, backend, name, [])
    with db.transaction() as tx:
        prompt_store.replace_verdicts(tx, set_id, rows)
    return answers, len(pairs) - len(rows)


def _write_labels(db: Database, backend: Backend, name: str, rows: list[QrelsRow]) -> int:
    """The judge's label set holds exactly `rows` (one batch of judge events); its id."""
    set_id = judge_label_set(db, name, backend.name)
    with db.transaction() as tx:
        label_store.create_label_staging(tx)
        try:
            label_store.stage_labels(tx, 0, rows)
            batch = new_batch(tx, "sensitivity run", name)
            label_store.apply_staged_labels(
                tx,
                set_id,
                0,
                origin="judge",
                source=f"{backend.name}:{backend.model}",
                batch_id=batch,
                remove_missing=True,
            )
        finally:
            label_store.drop_label_staging(tx)
    return set_id
