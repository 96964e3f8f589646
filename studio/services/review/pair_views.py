"""What Review shows of its pairs, read for several at once: each pair's topic and passage, what
the judges said of it (labels, item grades, prompt grades: one query each for all the pairs), where
the runs retrieve it, and how the audited leaderboard would move if it took the reference's grade."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from studio.domain.views import PairView
from studio.services.facade.lazy import lazy_module
from studio.services.review.pair_context import leaderboard_moves, retrieved_by
from studio.services.review.prompt_grades import shown_prompt_grades_of
from studio.store import review as review_store
from studio.store.pools import passage_texts, topic_texts

if TYPE_CHECKING:
    from studio.domain.rows import PromptGrade
    from studio.services.facade.core import ProjectCore
    from studio.services.review import conflicts
else:  # only a review of an audit's conflicts shows the assessors' grades, and brings the audits'
    # sampling and statistics: imported when first used
    conflicts = lazy_module("studio.services.review.conflicts")


@dataclass(frozen=True)
class ViewedPairs:
    """Whose pairs are shown: the reference and the audited label sets, the measure, the topics the
    audited leaderboard stands on (None: all it labels), and whether each assessor's grade is shown
    (a review of an audit's conflicts, `qrels` naming the audit)."""

    ref: str
    qrels: str
    measure: str
    audited_topics: tuple[str, ...] | None
    assessors: bool


def read_pair_views(project: ProjectCore, viewed: ViewedPairs, pairs: Sequence[Mapping[str, Any]]) -> list[PairView]:
    """The view of each of `pairs` (queue entries), in their order; the caller holds the project's lock."""
    keys = [(str(pair["qid"]), str(pair["docid"])) for pair in pairs]
    con = project.db.cursor()
    topics = topic_texts(con, [qid for qid, _ in keys])
    passages = passage_texts(con, keys)
    judged = review_store.pairs_judgments(con, keys)
    prompts = shown_prompt_grades_of(con, keys)
    return [
        _view(project, viewed, pair, topics.get(key[0], ""), passages.get(key, ""), judged[key], prompts[key])
        for pair, key in zip(pairs, keys, strict=True)
    ]


def _view(
    project: ProjectCore,
    viewed: ViewedPairs,
    pair: Mapping[str, Any],
    topic_text: str,
    passage: str,
    judged: review_store.Judged,
    prompts: list[PromptGrade],
) -> PairView:
    qid, docid = pair["qid"], pair["docid"]
    engine = project.engine
    ref_topic = engine.evaluator(viewed.ref).labels.get(qid)
    topic = engine.evaluator(viewed.qrels).labels.get(qid)
    ref_grade = ref_topic.judged.get(docid) if ref_topic else None
    outputs, item_grades = judged
    moves = leaderboard_moves(engine, viewed.qrels, viewed.measure, qid, docid, ref_grade, viewed.audited_topics)
    return PairView(
        qid,
        docid,
        topic_text,
        passage,
        ref_grade,
        topic.judged.get(docid) if topic else None,
        pair["delta_tau"],
        outputs,
        item_grades,
        retrieved=retrieved_by(engine.rankings(), qid, docid, topic),
        moves=moves,
        assessors=conflicts.assessor_grades(project, viewed.qrels, qid, docid) if viewed.assessors else {},
        prompts=prompts,
    )
