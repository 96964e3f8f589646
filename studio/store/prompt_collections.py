"""Prompt collections, the links of label sets to the prompt, model and test collection they were
made with, and pairwise verdicts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from studio.domain.rows import PromptGrade
from studio.store.database import Connection, records

if TYPE_CHECKING:  # built where read (below): a pair's prompt grades, all Review reads, need neither
    from studio.domain.prompt_study import PreferenceRow, StudyPrompt


def replace_collection(con: Connection, name: str, prompts: Sequence[StudyPrompt], batch: int) -> None:
    """The collection `name` holds exactly `prompts` (in their order) from now on."""
    con.execute("DELETE FROM study_prompts WHERE collection = ?", [name])
    con.executemany(
        "INSERT INTO study_prompts (collection, prompt_id, participant, author_group, method, system_text,"
        " user_text, position, batch_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            [name, p.prompt_id, p.participant, p.group, p.method, p.system, p.user, i, batch]
            for i, p in enumerate(prompts)
        ],
    )


def collection_names(con: Connection) -> list[str]:
    return [row[0] for row in con.execute("SELECT DISTINCT collection FROM study_prompts ORDER BY 1").fetchall()]


def collection_prompts(con: Connection, name: str) -> list[StudyPrompt]:
    """The prompts of a collection in their imported order (empty when there is none)."""
    rows = con.execute(
        "SELECT prompt_id, participant, author_group, method, system_text, user_text FROM study_prompts"
        " WHERE collection = ? ORDER BY position",
        [name],
    ).fetchall()
    from studio.domain.prompt_study import StudyPrompt

    return [StudyPrompt(*row) for row in rows]


def prompt_collections_of(con: Connection, prompt_id: str) -> list[str]:
    """The collections that hold a prompt with this id."""
    rows = con.execute(
        "SELECT DISTINCT collection FROM study_prompts WHERE prompt_id = ? ORDER BY 1", [prompt_id]
    ).fetchall()
    return [row[0] for row in rows]


def link_label_set(
    con: Connection, label_set: int, collection: str, prompt_id: str, method: str, model: str, test_collection: str
) -> None:
    """The label set was made with this prompt, model and test collection (a new link replaces the old)."""
    con.execute("DELETE FROM label_set_prompts WHERE label_set_id = ?", [label_set])
    con.execute(
        "INSERT INTO label_set_prompts VALUES (?, ?, ?, ?, ?, ?)",
        [label_set, collection, prompt_id, method, model, test_collection],
    )


def linked_label_sets(con: Connection) -> list[dict[str, Any]]:
    """Every linked label set with its name and the prompt's author group, by collection and position."""
    return records(
        con.execute(
            "SELECT s.name AS label_set, l.collection, l.prompt_id, l.method, l.model, l.test_collection,"
            " coalesce(p.author_group, l.prompt_id) AS author_group, coalesce(p.position, 0) AS position"
            " FROM label_set_prompts l JOIN label_sets s USING (label_set_id)"
            " LEFT JOIN study_prompts p ON p.collection = l.collection AND p.prompt_id = l.prompt_id"
            " AND p.method = l.method"
            " ORDER BY l.model, l.method, l.test_collection, position, l.prompt_id"
        )
    )


def pairs_prompt_grades(con: Connection, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], list[PromptGrade]]:
    """Each pair's grade under every pointwise prompt a label set is linked to (None where that set
    does not grade it), by model, method, prompt order and id: how far the prompts disagree on it.
    One query for all the pairs."""
    graded: dict[tuple[str, str], list[PromptGrade]] = {pair: [] for pair in pairs}
    if not pairs:
        return graded
    rows = con.execute(
        "SELECT w.qid, w.docid, s.name, l.collection, l.prompt_id, coalesce(p.author_group, l.prompt_id),"
        " l.method, l.model, g.grade, l.test_collection"
        " FROM label_set_prompts l JOIN label_sets s USING (label_set_id)"
        " CROSS JOIN (SELECT unnest($qids) AS qid, unnest($docids) AS docid) w"
        " LEFT JOIN study_prompts p ON p.collection = l.collection AND p.prompt_id = l.prompt_id"
        " AND p.method = l.method"
        " LEFT JOIN labels g ON g.label_set_id = l.label_set_id AND g.qid = w.qid AND g.docid = w.docid"
        " WHERE l.method <> 'pairwise'"
        " ORDER BY l.model, l.method, coalesce(p.position, 0), l.prompt_id",
        {"qids": [qid for qid, _ in pairs], "docids": [docid for _, docid in pairs]},
    ).fetchall()
    for qid, docid, name, collection, prompt_id, group, method, model, grade, test_collection in rows:
        graded[(qid, docid)].append(
            PromptGrade(
                label_set=name,
                collection=collection,
                prompt_id=prompt_id,
                author_group=group,
                method=method,
                model=model,
                grade=None if grade is None else float(grade),
                test_collection=test_collection,
            )
        )
    return graded


def replace_verdicts(con: Connection, label_set: int, rows: Sequence[PreferenceRow]) -> None:
    con.execute("DELETE FROM preference_verdicts WHERE label_set_id = ?", [label_set])
    if not rows:
        return
    con.executemany(
        "INSERT INTO preference_verdicts VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [[label_set, r.qid, r.category, r.doc_a, r.doc_b, r.verdict, r.a_first, r.b_first] for r in rows],
    )


def add_verdicts(con: Connection, rows: Sequence[tuple[int, PreferenceRow]]) -> None:
    """Verdicts of many label sets in one statement (a study's folder of pairwise files)."""
    if not rows:
        return
    table = [(s, r.qid, r.category, r.doc_a, r.doc_b, r.verdict, r.a_first, r.b_first) for s, r in rows]
    columns = [[row[i] for row in table] for i in range(8)]
    con.execute(
        "INSERT INTO preference_verdicts SELECT unnest(?::INTEGER[]), unnest(?::VARCHAR[]), unnest(?::VARCHAR[]),"
        " unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::DOUBLE[]), unnest(?::DOUBLE[])",
        columns,
    )


def verdicts(con: Connection, label_set: int) -> list[PreferenceRow]:
    rows = con.execute(
        "SELECT qid, category, doc_a, doc_b, verdict, a_first, b_first FROM preference_verdicts"
        " WHERE label_set_id = ? ORDER BY qid, category, doc_a, doc_b",
        [label_set],
    ).fetchall()
    from studio.domain.prompt_study import PreferenceRow

    return [PreferenceRow(*row) for row in rows]
