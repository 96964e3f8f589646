"""Judging generated answers (`studio judge --answers`) with the methods of Arabzadeh & Clarke's
Gen-IR comparison, through the same cached, resumable run loop as passages.

* binary, umbrela, subtopic: the studio's passage prompts adapted to a response
  (`assets/prompts/*-answer`), one call per answer (per subtopic for subtopic);
* subtopic: the topic's subtopics come from a test bank; when the bank named does not exist yet it
  is generated once, by the subtopic-generation prompt with the judge's own model, with the query
  itself as the first item (entry 0, as in the release's vectors), and a person can edit it in
  Bank like any other; an answer's label is the share of items satisfied, yes / (k + 1);
* pairwise: each answer against an exemplar (a Best passage of `--ref`, drawn per topic with the
  seed, or all of them), asked in both orders; without exemplars, answers against each other as a
  tournament (`--tournament`);
* embedding: mean cosine between the answer and every Best passage (the embeddings extra).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import replace

from studio.domain.choices import AnswerMethod, ExemplarChoice
from studio.domain.errors import UsageError
from studio.domain.judging import JudgeConfig, JudgeProgress, JudgeSummary
from studio.domain.models import BankItem, rubric_item_id
from studio.judges.backend import Backend, ChatRequest
from studio.judges.prompts import load_prompt
from studio.services.judging.backends import make_backend
from studio.services.judging.cached_calls import ask
from studio.services.judging.pools import pool_pairs
from studio.services.judging.run import run_judge
from studio.services.rubric.generation import PROMPTS as GENERATION_PROMPTS
from studio.services.rubric.generation import generated_items, write_generated
from studio.services.writes.label_writes import LabelWrites
from studio.store import Database, pools
from studio.store import banks as bank_store

# The judge methods of answers, each with its adapted prompt (None: the method's own), and what its
# label set then holds.
ANSWER_PROMPTS: dict[str, str | None] = {
    "binary": "binary-answer",
    "umbrela": "umbrela-answer",
    "subtopic": "subtopic-answer",
    "pairwise": None,
    "embedding": None,
}
DEFAULT_SUBTOPIC_BANK = "answer-subtopics"
MAX_SUBTOPICS = 10


def answer_config(config: JudgeConfig) -> JudgeConfig:
    """`config` as an answers judge: the responses pool, the adapted prompt, the exemplars of a
    preference judge (one drawn per topic unless told otherwise; `none` for a tournament), the bank
    of a subtopic judge."""
    if config.method not in ANSWER_PROMPTS:
        raise UsageError(f"answers are judged with {', '.join(ANSWER_PROMPTS)}, not {config.method!r}")
    if config.pool not in ("qrels:human", "responses"):
        raise UsageError("--answers judges every generated answer: leave --pool out")
    exemplars = config.exemplars
    if exemplars is not None and exemplars not in set(ExemplarChoice):
        raise UsageError(f"--exemplars is one of {', '.join(ExemplarChoice)}, not {exemplars!r}")
    if config.method == "pairwise":
        exemplars = exemplars or ExemplarChoice.one.value
    elif exemplars is not None:
        raise UsageError("--exemplars (and --tournament) go with the pairwise method")
    bank = config.bank or (DEFAULT_SUBTOPIC_BANK if config.method == "subtopic" else None)
    return replace(
        config,
        answers=True,
        pool="responses",
        prompt=config.prompt or ANSWER_PROMPTS[config.method],
        exemplars=exemplars,
        bank=bank,
    )


def judge_answers(
    db: Database, config: JudgeConfig, backend: Backend | None, writes: LabelWrites
) -> Generator[JudgeProgress | JudgeSummary, None, None]:
    """Run an answers judge (`config` as `answer_config` made it): progress, then the summary."""
    if not pool_pairs(db, config):
        raise UsageError("the project holds no generated answers (see `studio import responses`)")
    if config.method == "embedding":
        # Imported when used: the embedding judge needs the optional sentence-transformers.
        from studio.services.answers.embedding import answer_embedding_judge

        summary = answer_embedding_judge(db, config)
        writes.written([config.name])
        yield summary
        return
    empty: list[str] = []
    if config.method == "subtopic" and not _bank_exists(db, config.bank):
        backend = backend or make_backend(db, config)
        empty = yield from generate_subtopic_bank(db, config, backend)
    for event in run_judge(db, config, backend, writes=writes):
        if isinstance(event, JudgeSummary) and empty:  # said, not silent: those topics score the query alone
            event.topics_without_subtopics = empty
        yield event


def _bank_exists(db: Database, bank: str | None) -> bool:
    return bank is not None and bank_store.bank_id(db.cursor(), bank) is not None


def generate_subtopic_bank(
    db: Database, config: JudgeConfig, backend: Backend
) -> Generator[JudgeProgress, None, list[str]]:
    """Bank `config.bank`: for every answered topic the query itself, then the subtopics the
    subtopic-generation prompt gives (one cached call a topic); the topics it gave none for."""
    assert config.bank is not None
    if backend.name == "simulated":
        raise UsageError(
            f"no bank {config.bank!r}: the simulated judge cannot write subtopics; judge once with a model (it "
            "generates the bank, the query first) or import a bank of subtopics and name it with --bank"
        )
    qids = sorted({qid for qid, _ in pool_pairs(db, config)})
    queries = pools.topic_texts(db.cursor(), qids)
    missing = [q for q in qids if q not in queries]
    if missing:
        raise UsageError(f"no text for topic {missing[0]!r} (import the topics first)")
    prompt = load_prompt(GENERATION_PROMPTS["subtopic"])
    requests = [
        ChatRequest(tuple(prompt.render(query=queries[q])), max_tokens=400, subject=(q,), unit="generate") for q in qids
    ]
    answers = yield from ask(db, backend, requests)
    made = generated_items(qids, answers, "subtopic", MAX_SUBTOPICS)
    generated = made.items
    items: list[BankItem] = []
    for qid in qids:
        query = BankItem(qid, rubric_item_id(qid, queries[qid]), "subtopic", queries[qid])
        items += [query, *(i for i in generated if i.qid == qid and i.item_id != query.item_id)]
    write_generated(db, replace(config, name=config.bank), None, backend, prompt, items)
    return made.empty


def answer_method_of(method: str, exemplars: str | None, answers: bool) -> AnswerMethod | None:
    """What a judge run of `method` makes of answers (None: not an answers judge)."""
    if not answers:
        return None
    return {
        "binary": AnswerMethod.binary,
        "umbrela": AnswerMethod.graded,
        "subtopic": AnswerMethod.subtopics,
        "embedding": AnswerMethod.embedding,
        "pairwise": AnswerMethod.tournament if exemplars == ExemplarChoice.none else AnswerMethod.preferences,
    }.get(method)
