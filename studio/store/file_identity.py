"""Is this file a studio project? Told before anything is written to it.

A file that is not DuckDB at all (SQLite, text, an empty file, anything) is told by its first
bytes, before DuckDB opens it: DuckDB would otherwise try its luck (for a SQLite file it looks for
an extension to read it with). A DuckDB file is the studio's when it carries the studio's mark (a
one-row table naming the application, since schema version 18) or, written before the mark
existed, the tables every studio project has held since version 1.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

DUCKDB_MAGIC = b"DUCK"
MAGIC_OFFSET = 8  # DuckDB's main header: a checksum (8 bytes), then the magic
APPLICATION = "relevance-assessment-studio"
MARK_TABLE = "studio_project"

# The tables version 1 made, so what every studio project file holds (the mark came later;
# run_rows is a view since version 10).
STUDIO_RELATIONS = frozenset(
    {
        "schema_version",
        "batches",
        "topics",
        "documents",
        "runs",
        "run_rows",
        "label_sets",
        "label_events",
        "responses",
        "banks",
        "bank_events",
    }
)

# Headers of files people mistake for a project: named in the refusal so that they know what they named.
KNOWN_HEADERS = (
    (b"SQLite format 3\x00", "a SQLite database"),
    (b"PAR1", "a Parquet file"),
    (b"PK\x03\x04", "a zip archive"),
    (b"\x1f\x8b", "a gzip file"),
)
HEAD_BYTES = 512  # enough to tell text from binary
NAMES_SHOWN = 5


def not_duckdb(path: Path) -> str | None:
    """Why the existing file at `path` is not a DuckDB database; None when it is one.

    Raises OSError when it cannot be read."""
    if path.is_dir():
        return "it is a folder"
    with path.open("rb") as file:
        head = file.read(HEAD_BYTES)
    if head[MAGIC_OFFSET : MAGIC_OFFSET + len(DUCKDB_MAGIC)] == DUCKDB_MAGIC:
        return None
    if not head:
        return "it is an empty file, not a DuckDB database"
    for magic, what in KNOWN_HEADERS:
        if head.startswith(magic):
            return f"it is {what}, not a DuckDB database"
    if _is_text(head):
        return "it is a text file, not a DuckDB database"
    return f"it is not a DuckDB database (DuckDB's files hold {DUCKDB_MAGIC.decode()!r} at byte {MAGIC_OFFSET})"


def not_the_studios(con: duckdb.DuckDBPyConnection) -> str | None:
    """Why the open DuckDB database is not a studio project; None when it is one. Only reads."""
    held = _names(con, "duckdb_tables()")
    if MARK_TABLE in held:
        marks = [str(row[0]) for row in con.execute(f"SELECT application FROM {MARK_TABLE}").fetchall()]
        if marks == [APPLICATION]:
            return None
        return f"its {MARK_TABLE} table names {', '.join(marks) or 'no application'}, not {APPLICATION}"
    held |= _names(con, "duckdb_views()")
    if held >= STUDIO_RELATIONS:
        return None  # written before the mark existed: the mark comes with the upgrade
    if not held:
        return "it is a DuckDB database holding no tables"
    shown = ", ".join(sorted(held)[:NAMES_SHOWN]) + (", …" if len(held) > NAMES_SHOWN else "")
    return f"it is another program's DuckDB database (it holds {shown})"


def _names(con: duckdb.DuckDBPyConnection, catalog: str) -> set[str]:
    """Names of the database's own tables or views (not DuckDB's internal ones)."""
    column = "table_name" if catalog == "duckdb_tables()" else "view_name"
    rows = con.execute(
        f"SELECT {column} FROM {catalog} WHERE database_name = current_database() AND NOT internal"
    ).fetchall()
    return {str(row[0]) for row in rows}


def _is_text(head: bytes) -> bool:
    if b"\x00" in head:
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start >= len(head) - 3  # a character cut by the end of what was read
    return True
