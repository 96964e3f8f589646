"""`studio validate --labels SET --ref QRELS`: does a method order the reference's Best, Acceptable
and Unacceptable passages as they are? (Arabzadeh & Clarke, "A Comparison of Methods for
Evaluating Generative IR", Section 3: a method is validated on passages before it judges answers.)

How the method orders a pair of passages from two categories of a topic:

* **grades** (a pointwise label set: binary, graded, UMBRELA, …): the higher grade; both passages
  must be labelled;
* **preferences** (a pairwise judge of passages, or imported pairwise verdicts): the verdicts
  directly, a pair judged in both orders agreeing when both pick the passage of the higher
  category, a tie when the orders disagree; pairs never judged are not counted;
* **embedding** (an embedding judge): the cosine similarity of each passage to an exemplar drawn
  (seeded, per pair) from the topic's Best passages other than the two; a pair with no such
  exemplar (a topic with one Best passage, compared with it) is not counted.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import numpy as np

from studio.domain.answer_results import CategoryPairRow, Validation
from studio.domain.errors import UsageError
from studio.judges.embedder import TextEmbedder
from studio.metrics.categories import CATEGORY_PAIRS, Order, Tally, categories, grade_signs, order_signs, tally
from studio.store import Database
from studio.store import judge_outputs as output_store
from studio.store import judging as judge_store
from studio.store import labels as label_store
from studio.store import prompt_collections as study_store
from studio.store.evaluation import load_labels

Reference = dict[str, dict[str, float]]
Signs = Callable[[str, list[str], list[str]], np.ndarray]


def validate(
    db: Database,
    label_set: str,
    ref: str,
    *,
    relevant: float = 1.0,
    seed: int = 0,
    embedder: TextEmbedder | None = None,
) -> Validation:
    """Agree / tie / disagree shares per category pair, with both categories' passage counts."""
    if label_set == ref:
        raise UsageError("validate a label set against another one (--ref)")
    con = db.cursor()
    set_id, ref_id = (label_store.label_set_id(con, name) for name in (label_set, ref))
    for name, found in ((label_set, set_id), (ref, ref_id)):
        if found is None:
            raise UsageError(f"no label set named {name!r} (see `studio list qrels`)")
    assert set_id is not None and ref_id is not None
    reference = load_labels(con, ref_id)
    how, signs = _ordering(db, set_id, reference, relevant, seed, embedder)
    tallies = tally(reference, signs, relevant)
    return Validation(
        label_set=label_set,
        ref=ref,
        how=how,
        relevant=relevant,
        topics=sum(bool(categories(grades, relevant)["best"]) for grades in reference.values()),
        seed=seed if how == "embedding" else None,
        rows=[_row(f"{a}_vs_{b}", a, b, tallies[f"{a}_vs_{b}"]) for a, b in CATEGORY_PAIRS],
    )


def _row(key: str, higher: str, lower: str, found: Tally) -> CategoryPairRow:
    total = found.pairs
    return CategoryPairRow(
        pair=key,
        higher=higher,
        lower=lower,
        higher_count=len(found.higher),
        lower_count=len(found.lower),
        pairs=total,
        agree=found.agree / total if total else None,
        tie=found.tie / total if total else None,
        disagree=found.disagree / total if total else None,
        topics=len(found.topics),
    )


def _ordering(
    db: Database, set_id: int, reference: Reference, relevant: float, seed: int, embedder: TextEmbedder | None
) -> tuple[str, Signs]:
    """What orders the pairs (grades, preferences or embedding) and how."""
    con = db.cursor()
    newest = judge_store.newest_judge_run(con, set_id)
    method = newest[1] if newest is not None else None
    imported = study_store.verdicts(con, set_id)
    if imported:
        verdict_signs = {"agree": 1, "tie": 0, "disagree": -1}
        found = {(r.qid, r.doc_a, r.doc_b): verdict_signs.get(r.verdict) for r in imported}
        return "preferences", _signs(lambda q, h, low: found.get((q, h, low)))
    if newest is not None and method == "pairwise":
        return "preferences", _signs(_preference_order(output_store.preference_answers(con, newest[0])))
    if newest is not None and method == "embedding":
        model = (json.loads(newest[2]).get("config") or {}).get("model")
        return "embedding", _signs(_embedding_order(db, reference, relevant, seed, embedder, model))
    values = load_labels(con, set_id)
    return "grades", lambda qid, higher, lower: grade_signs(values.get(qid, {}), higher, lower)


def _signs(order: Order) -> Signs:
    return lambda qid, higher, lower: order_signs(order, qid, higher, lower)


def _preference_order(answers: dict[tuple[str, str, str], float | None]) -> Order:
    """A pair judged in both orders: +1 when both pick the higher passage, -1 the lower, else 0."""

    def order(qid: str, higher: str, lower: str) -> int | None:
        higher_first, lower_first = answers.get((qid, higher, lower)), answers.get((qid, lower, higher))
        if higher_first is None or lower_first is None:
            return None
        if (higher_first, lower_first) == (1.0, 2.0):
            return 1
        return -1 if (higher_first, lower_first) == (2.0, 1.0) else 0

    return order


def _embedding_order(
    db: Database, reference: Reference, relevant: float, seed: int, embedder: TextEmbedder | None, model: str | None
) -> Order:
    """Similarity to an exemplar from the topic's other Best passages, drawn per pair with the seed."""
    # Imported when used: it reaches the embedding cache and the optional embedding model.
    from studio.judges.embedder import Embedder
    from studio.services.judging.embeddings import embed_pairs

    judged = [(qid, docid) for qid, grades in reference.items() for docid in grades]
    embedded = embed_pairs(db, embedder or Embedder(model), judged)
    vectors = embedded.vectors.astype(np.float64)
    best = {qid: categories(grades, relevant)["best"] for qid, grades in reference.items()}

    def order(qid: str, higher: str, lower: str) -> int | None:
        candidates = [e for e in best.get(qid, []) if e not in (higher, lower) and (qid, e) in embedded.row_of]
        if not candidates or (qid, higher) not in embedded.row_of or (qid, lower) not in embedded.row_of:
            return None
        exemplar = vectors[embedded.row_of[(qid, random.Random(f"{seed}/{qid}/{higher}/{lower}").choice(candidates))]]
        near = vectors[embedded.row_of[(qid, higher)]] @ exemplar, vectors[embedded.row_of[(qid, lower)]] @ exemplar
        return int(np.sign(near[0] - near[1]))

    return order
