"""Score tables: leaderboards imported from files (migration 19), kept to correlate against."""

from __future__ import annotations

from collections.abc import Sequence

from studio.domain.rows import ScoreTableRow
from studio.store.database import Connection

MEAN_TOPIC = "all"


def _exists(con: Connection) -> bool:
    # A read-only file from before version 19 is read as it is: it holds no score tables.
    found = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'score_tables'").fetchone()
    return bool(found and found[0])


def score_table_id(con: Connection, name: str) -> int | None:
    if not _exists(con):
        return None
    found = con.execute("SELECT score_table_id FROM score_tables WHERE name = ?", [name]).fetchone()
    return int(found[0]) if found else None


def replace_score_table(
    con: Connection, name: str, source: str, layout: str, rows: Sequence[tuple[str, str, str, float]]
) -> int:
    """Store a score table under `name`, replacing one of that name; (run, measure, topic, value) rows."""
    old = score_table_id(con, name)
    if old is not None:
        con.execute("DELETE FROM score_values WHERE score_table_id = ?", [old])
        con.execute("DELETE FROM score_tables WHERE score_table_id = ?", [old])
    found = con.execute(
        "INSERT INTO score_tables (name, source, layout) VALUES (?, ?, ?) RETURNING score_table_id",
        [name, source, layout],
    ).fetchone()
    assert found is not None
    table = int(found[0])
    con.executemany(
        "INSERT INTO score_values (score_table_id, run, measure, topic, value) VALUES (?, ?, ?, ?, ?)",
        [(table, *row) for row in rows],
    )
    return table


def list_score_tables(con: Connection) -> list[ScoreTableRow]:
    """`studio list leaderboards`: name, runs, measures, topics (without `all`), values, layout, source."""
    if not _exists(con):
        return []
    rows = con.execute(
        """
        SELECT t.name, count(DISTINCT v.run), count(DISTINCT v.measure),
               count(DISTINCT v.topic) FILTER (WHERE v.topic <> ?), count(v.value), t.layout, t.source
        FROM score_tables t LEFT JOIN score_values v USING (score_table_id)
        GROUP BY t.score_table_id, t.name, t.layout, t.source ORDER BY t.name
        """,
        [MEAN_TOPIC],
    ).fetchall()
    return [
        ScoreTableRow(
            name=str(name),
            runs=int(runs),
            measures=int(measures),
            topics=int(topics),
            values=int(values),
            layout=str(layout),
            source=str(source),
        )
        for name, runs, measures, topics, values, layout, source in rows
    ]


def measures_of(con: Connection, table: int) -> list[str]:
    rows = con.execute(
        "SELECT DISTINCT measure FROM score_values WHERE score_table_id = ? ORDER BY measure", [table]
    ).fetchall()
    return [str(row[0]) for row in rows]


def values_of(con: Connection, table: int, measure: str) -> dict[tuple[str, str], float]:
    """{(run, topic): value} of one measure (topic `all`: the mean)."""
    rows = con.execute(
        "SELECT run, topic, value FROM score_values WHERE score_table_id = ? AND measure = ?", [table, measure]
    ).fetchall()
    return {(str(run), str(topic)): float(value) for run, topic, value in rows}
