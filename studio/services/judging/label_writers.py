"""Labels a judge writes besides one per call: a rubric judge's own scores, preference wins."""

from __future__ import annotations

from studio.banks.derived import DEFAULT_MIN_GRADE
from studio.domain.models import BankItem
from studio.judges.methods import Method, pairwise_scores
from studio.services.rubric.derive import scores_of
from studio.store import Connection, Database
from studio.store import judge_outputs as output_store
from studio.store import judging as judge_store
from studio.store import labels as label_store


def write_own_scores(
    con: Connection, method: Method, run: int, set_id: int, batch: int, source: str, items: list[BankItem]
) -> None:
    """A rubric judge's own label set: each graded document's score under the method's own score
    (best item grade 0–5 for exam methods, nugget score All for the assigner, fraction of subtopics
    satisfied). Other derived label sets come from the stored item grades (`studio derive`)."""
    assert method.own_score is not None
    scores = scores_of(method.own_score, judge_store.item_grades(con, run), items, DEFAULT_MIN_GRADE)
    for qid, docs in scores.items():
        for docid, score in docs.items():
            if label_store.current_grade(con, set_id, qid, docid) != score:
                label_store.append_label_event(
                    con, set_id, qid, docid, score, origin="judge", source=source, batch_id=batch
                )


def write_preference_labels(
    db: Database, run: int, set_id: int, pairs: list[tuple[str, str]], batch: int, source: str
) -> None:
    """Wins per document (ties ignored) become the label set's scores."""
    answers = output_store.preference_answers(db.cursor(), run)
    by_topic: dict[str, list[str]] = {}
    for qid, docid in pairs:
        by_topic.setdefault(qid, []).append(docid)
    with db.transaction() as tx:
        for qid, docids in by_topic.items():
            outcomes = [
                (a, b, answers.get((qid, a, b)), answers.get((qid, b, a)))
                for (q, a, b) in answers
                if q == qid and docids.index(a) < docids.index(b)
            ]
            for docid, wins in pairwise_scores(docids, outcomes).items():
                if label_store.current_grade(tx, set_id, qid, docid) != wins:
                    label_store.append_label_event(
                        tx, set_id, qid, docid, wins, origin="judge", source=source, batch_id=batch
                    )


def write_exemplar_labels(
    db: Database, run: int, set_id: int, pairs: list[tuple[str, str]], batch: int, source: str
) -> None:
    """Each answer's label: the share of its exemplars it wins, a win being both orders picking the
    answer (anything else a tie); an answer no order of which was read gets none (its failures say why)."""
    outcomes = exemplar_outcomes(output_store.preference_answers(db.cursor(), run), pairs)
    with db.transaction() as tx:
        for (qid, answer), wins in outcomes.items():
            if wins and label_store.current_grade(tx, set_id, qid, answer) != sum(wins) / len(wins):
                label_store.append_label_event(
                    tx, set_id, qid, answer, sum(wins) / len(wins), origin="judge", source=source, batch_id=batch
                )


def exemplar_outcomes(
    answers: dict[tuple[str, str, str], float | None], pairs: list[tuple[str, str]]
) -> dict[tuple[str, str], list[float]]:
    """{(qid, answer): 1.0 or 0.0 per exemplar met in both orders}: 1 when the answer was picked both
    times (shown second, then first), else 0 (a tie or a loss)."""
    wanted = set(pairs)
    found: dict[tuple[str, str], list[float]] = {pair: [] for pair in pairs}
    for (qid, first, second), exemplar_first in answers.items():
        if (qid, second) not in wanted:  # keyed by the order with the exemplar shown first
            continue
        answer_first = answers.get((qid, second, first))
        if exemplar_first is None or answer_first is None:
            continue
        found[(qid, second)].append(1.0 if exemplar_first == 2.0 and answer_first == 1.0 else 0.0)
    return found
