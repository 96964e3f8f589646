"""Assessment campaigns: the pool as drawn under each topic's condition, who is given which pair,
and every grade each assessor gave (append-only, tied to the label event written with it)."""

from __future__ import annotations

from collections.abc import Sequence

from studio.domain.campaigns import RECALL_SUFFIX, CampaignRecord, Condition, PairRole, PoolPair, StoredGrade
from studio.store.database import Connection, typed_records
from studio.store.label_events import EventNote, add_event_notes, event_source_id
from studio.store.migrations import schema_holds, v22_campaigns, v26_team_gates

RECALL = str(PairRole.recall)

# A grade counts while the label event written with it stands (an undo of the event takes it back).
_LIVE = "NOT EXISTS (SELECT 1 FROM label_events u WHERE u.undoes = g.label_event)"

# An imported grade: (qid, docid, the pair's new label, note, assessor, condition, grade, LLM visible).
ImportedGrade = tuple[str, str, float | None, str, str, str, float, bool]

# A pool pair to store: (qid, docid, LLM grade or None, role, position, inclusion or None).
PoolRow = tuple[str, str, float | None, str, int, float | None]

_RECORD = (
    "SELECT campaign_id, name, llm, pool, llm_relevant, overlap, seed,"
    " strftime(created_at, '%Y-%m-%d %H:%M:%S') AS created FROM campaigns"
)


def create_campaign(
    con: Connection, name: str, llm: str, pool: str, *, llm_relevant: float, overlap: float, seed: int
) -> int:
    """The campaign's record, with the newest label event of its LLM set now (`llm_event`)."""
    row = con.execute(
        "INSERT INTO campaigns (campaign_id, name, llm, pool, llm_relevant, overlap, seed, llm_event)"
        " VALUES (nextval('campaign_ids'), ?, ?, ?, ?, ?, ?, (SELECT max(e.event_id) FROM label_events e"
        " JOIN label_sets s USING (label_set_id) WHERE s.name = ?)) RETURNING campaign_id",
        [name, llm, pool, llm_relevant, overlap, seed, llm],
    ).fetchone()
    assert row is not None
    return int(row[0])


def llm_event(con: Connection, campaign_id: int) -> int | None:
    """The newest label event of the campaign's LLM set when it was planned (None: planned before
    the studio kept it, or the set had no event)."""
    if not schema_holds(con, v26_team_gates.VERSION):
        return None
    row = con.execute("SELECT llm_event FROM campaigns WHERE campaign_id = ?", [campaign_id]).fetchone()
    return None if row is None or row[0] is None else int(row[0])


def llm_pairs_changed_since(con: Connection, llm: str, event: int) -> int:
    """How many pairs of the LLM set label events after `event` wrote (a re-import, an edit)."""
    row = con.execute(
        "SELECT count(DISTINCT (e.qid, e.docid)) FROM label_events e JOIN label_sets s USING (label_set_id)"
        " WHERE s.name = ? AND e.event_id > ?",
        [llm, event],
    ).fetchone()
    return int(row[0]) if row else 0


def add_topics(con: Connection, campaign_id: int, topics: dict[str, str]) -> None:
    """Each topic (qid → condition) of the campaign."""
    if topics:
        con.execute(
            "INSERT INTO campaign_topics SELECT ?, unnest(?::VARCHAR[]), unnest(?::VARCHAR[])",
            [campaign_id, list(topics), list(topics.values())],
        )


def add_pairs(con: Connection, campaign_id: int, rows: Sequence[PoolRow]) -> None:
    if not rows:
        return
    qids, docids, grades, roles, positions, inclusions = (list(c) for c in zip(*rows, strict=True))
    con.execute(
        "INSERT INTO campaign_pairs SELECT ?, unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::DOUBLE[]),"
        " unnest(?::VARCHAR[]), unnest(?::DOUBLE[]), unnest(?::INTEGER[])",
        [campaign_id, qids, docids, grades, roles, inclusions, positions],
    )


def add_assignments(con: Connection, campaign_id: int, rows: Sequence[tuple[str, str, str]]) -> None:
    """(qid, docid, assessor) of each pair given to an assessor."""
    if not rows:
        return
    qids, docids, assessors = (list(c) for c in zip(*rows, strict=True))
    con.execute(
        "INSERT INTO campaign_assignments SELECT ?, unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::VARCHAR[])",
        [campaign_id, qids, docids, assessors],
    )


def campaign(con: Connection, name: str) -> CampaignRecord | None:
    found = typed_records(con.execute(f"{_RECORD} WHERE name = ?", [name]), CampaignRecord)
    return found[0] if found else None


def campaigns(con: Connection) -> list[CampaignRecord]:
    return typed_records(con.execute(f"{_RECORD} ORDER BY campaign_id"), CampaignRecord)


def holds_campaigns(con: Connection) -> bool:
    """Whether the file has the campaign tables (a read-only file of an older version may not)."""
    return schema_holds(con, v22_campaigns.VERSION)


def campaign_names(con: Connection) -> frozenset[str]:
    """The label sets campaigns own: each campaign's (named like it) and its recall sample's (named
    NAME-recall, when it drew one); none in a read-only file of a version before campaigns."""
    if not holds_campaigns(con):
        return frozenset()
    rows = con.execute(
        "SELECT name, EXISTS (SELECT 1 FROM campaign_pairs p WHERE p.campaign_id = c.campaign_id AND p.role = ?)"
        " FROM campaigns c",
        [RECALL],
    ).fetchall()
    return frozenset(str(name) for name, _ in rows) | frozenset(
        f"{name}{RECALL_SUFFIX}" for name, recall in rows if recall
    )


def topics(con: Connection, campaign_id: int) -> dict[str, str]:
    """qid → condition, by qid."""
    rows = con.execute(
        "SELECT qid, condition FROM campaign_topics WHERE campaign_id = ? ORDER BY qid", [campaign_id]
    ).fetchall()
    return {str(q): str(c) for q, c in rows}


def pairs(con: Connection, campaign_id: int) -> list[PoolPair]:
    """The pool pairs in walk order, each with its topic's condition."""
    rows = con.execute(
        "SELECT p.qid, p.docid, p.llm_grade, p.role, p.position, t.condition, p.inclusion FROM campaign_pairs p"
        " JOIN campaign_topics t ON t.campaign_id = p.campaign_id AND t.qid = p.qid"
        " WHERE p.campaign_id = ? ORDER BY p.position",
        [campaign_id],
    ).fetchall()
    return [
        PoolPair(str(q), str(d), None if g is None else float(g), PairRole(r), int(n), Condition(c), i)
        for q, d, g, r, n, c, i in rows
    ]


def assignments(con: Connection, campaign_id: int) -> list[tuple[str, str, str]]:
    """(qid, docid, assessor) of every assignment of the campaign."""
    rows = con.execute(
        "SELECT qid, docid, assessor FROM campaign_assignments WHERE campaign_id = ? ORDER BY assessor, qid, docid",
        [campaign_id],
    ).fetchall()
    return [(str(q), str(d), str(a)) for q, d, a in rows]


def add_grade(
    con: Connection,
    campaign_id: int,
    qid: str,
    docid: str,
    assessor: str,
    *,
    condition: str,
    grade: float | None,
    seconds: float | None,
    llm_visible: bool,
    label_event: int,
) -> None:
    con.execute(
        "INSERT INTO campaign_grades (campaign_id, qid, docid, assessor, condition, grade, seconds, llm_visible,"
        " label_event) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [campaign_id, qid, docid, assessor, condition, grade, seconds, llm_visible, label_event],
    )


def standing(con: Connection, campaign_id: int) -> list[StoredGrade]:
    """The grades that stand: per (pair, assessor) the newest live row unless it took the grade
    back; oldest first."""
    cursor = con.execute(
        f"""
        SELECT qid, docid, assessor, condition, grade, seconds, llm_visible FROM (
            SELECT g.*, row_number() OVER (
                PARTITION BY g.qid, g.docid, g.assessor ORDER BY g.grade_id DESC) AS newest
            FROM campaign_grades g WHERE g.campaign_id = ? AND {_LIVE}
        ) WHERE newest = 1 AND grade IS NOT NULL ORDER BY grade_id
        """,
        [campaign_id],
    )
    return typed_records(cursor, StoredGrade)


def decision_seconds(con: Connection) -> list[float]:
    """The seconds each timed campaign grade of the project took (undone ones left out)."""
    rows = con.execute(
        f"SELECT g.seconds FROM campaign_grades g WHERE g.seconds IS NOT NULL AND g.grade IS NOT NULL AND {_LIVE}"
    ).fetchall()
    return [float(s) for (s,) in rows]


def append_imported(
    con: Connection,
    label_set: int,
    campaign_id: int,
    rows: Sequence[ImportedGrade],
    *,
    source: str,
    batch_id: int,
) -> None:
    """An import's grades in two statements: a label event per row (the pair's new label, with the
    label it replaces) and the assessor's grade pointing at it."""
    if not rows:
        return
    columns = list(zip(*rows, strict=True))
    qids, docids, labels, notes = (list(columns[i]) for i in range(4))
    written = con.execute(
        """
        INSERT INTO label_event_rows (event_id, label_set_id, qid, docid, grade, previous, source_id, batch_id)
        SELECT nextval('label_event_ids'), ?, n.qid, n.docid, n.grade,
               (SELECT arg_max_null(e.grade, e.event_id) FROM label_event_rows e
                WHERE e.label_set_id = ? AND e.qid = n.qid AND e.docid = n.docid),
               ?, ?
        FROM (SELECT unnest(?::VARCHAR[]) AS qid, unnest(?::VARCHAR[]) AS docid, unnest(?::DOUBLE[]) AS grade,
                     unnest(range(?)) AS ord) n
        ORDER BY n.ord
        RETURNING event_id, qid, docid
        """,
        [label_set, label_set, event_source_id(con, "import", source), batch_id, qids, docids, labels, len(rows)],
    ).fetchall()
    events = {(str(q), str(d)): int(e) for e, q, d in written}
    add_event_notes(
        con, [EventNote(events[(q, d)], note, None) for q, d, note in zip(qids, docids, notes, strict=True)]
    )
    con.execute(
        "INSERT INTO campaign_grades (campaign_id, qid, docid, assessor, condition, grade, seconds, llm_visible,"
        " label_event) SELECT ?, unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::VARCHAR[]),"
        " unnest(?::VARCHAR[]), unnest(?::DOUBLE[]), NULL, unnest(?::BOOLEAN[]), unnest(?::BIGINT[])",
        [
            campaign_id,
            qids,
            docids,
            list(columns[4]),
            list(columns[5]),
            list(columns[6]),
            list(columns[7]),
            [events[(q, d)] for q, d in zip(qids, docids, strict=True)],
        ],
    )
