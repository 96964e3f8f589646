"""Grading verification (Rubric workbench): the answer each document gives to each item.

After a rubric judge ran, each (document, item) grade can be checked against the text the
model extracts from the document for that item: grades sorted per item with their answers show
at a glance whether a high grade rests on a real answer. Extractions go through the call cache.
"""

from __future__ import annotations

from collections.abc import Iterator

from studio.domain.errors import UsageError
from studio.domain.judge_results import ExtractedAnswers, VerificationRow
from studio.domain.judging import JudgeProgress
from studio.judges.backend import Backend, ChatRequest
from studio.judges.prompts import load_prompt
from studio.services.judging.backends import make_backend
from studio.services.judging.cached_calls import ask
from studio.services.judging.config import last_config, newest_run
from studio.store import Database, pools
from studio.store import banks as bank_store
from studio.store import judge_outputs as output_store

PROMPTS = {"question": ("extract-answer", "question"), "nugget": ("extract-nugget", "nugget")}


def _newest_run(db: Database, label_set: str) -> int:
    return newest_run(db.cursor(), label_set)[0]


def extract_answers(
    db: Database, label_set: str, backend: Backend | None = None
) -> Iterator[JudgeProgress | ExtractedAnswers]:
    """Extract an answer for every item judgment of the label set's newest rubric run."""
    config = last_config(db, label_set)
    if config.bank is None:
        raise UsageError(f"label set {label_set!r} was not graded with a test bank")
    con = db.cursor()
    run = _newest_run(db, label_set)
    bank_id = bank_store.bank_id(con, config.bank)
    items = {i.item_id: i for i in bank_store.current_items(con, bank_id)} if bank_id is not None else {}
    rows = output_store.judged_items(con, run)
    passages = pools.passage_texts(con, [(q, d) for q, d, _ in rows])
    backend = backend or make_backend(db, config)
    work: list[tuple[str, str, str, ChatRequest]] = []
    for qid, docid, item_id in rows:
        item = items.get(item_id)
        if item is None or item.kind not in PROMPTS or (qid, docid) not in passages:
            continue  # the item was deleted since, has no extraction prompt (subtopics), or the text is gone
        prompt_name, slot = PROMPTS[item.kind]
        messages = load_prompt(prompt_name).render(**{slot: item.text, "passage": passages[(qid, docid)]})
        request = ChatRequest(tuple(messages), max_tokens=120, subject=(qid, docid, item_id), unit="generate")
        work.append((qid, docid, item_id, request))
    answers = yield from ask(db, backend, [w[3] for w in work])
    with db.transaction() as tx:
        for (qid, docid, item_id, _), key in zip(work, answers.keys, strict=True):
            output_store.set_answer_key(tx, run, qid, docid, item_id, key)
    yield ExtractedAnswers(judgments=len(work), calls=answers.made, cache_hits=answers.cached)


def verification(db: Database, label_set: str, item_id: str | None = None) -> list[VerificationRow]:
    """Per item, the documents by grade (highest first) with the answer extracted from each."""
    run = _newest_run(db, label_set)
    return output_store.verification_rows(db.cursor(), run, item_id)
