"""The published base as DuckDB writes it: every table of the project a Parquet file, and the
schema as SQL (`EXPORT DATABASE … (FORMAT PARQUET)`).

Parquet rather than rows: a 3-million-row run set leaves as one compressed columnar file DuckDB
writes at disk speed, goes to the server as a few large values, and comes back into a member's
DuckDB file with one COPY, where row inserts would take minutes each way; and Parquet, unlike a
copy of the DuckDB file itself, does not tie the members to the coordinator's DuckDB storage
version.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import duckdb

from studio.store.database import Connection
from studio.store.fast_path import literal_path

LOAD_FILE = "load.sql"
# `COPY table FROM '/where/it/was/written/table.parquet' (FORMAT 'parquet');` in load.sql
_COPY_SOURCE = re.compile(r"FROM '([^']*/)?([^'/]+\.parquet)'")


def _quoted(path: Path) -> str:
    return "'" + literal_path(path).replace("'", "''") + "'"


def export_files(con: Connection) -> Iterator[tuple[str, bytes]]:
    """Each file of the project's snapshot: (name, bytes)."""
    with tempfile.TemporaryDirectory(prefix="studio-snapshot-") as folder:
        con.execute(f"EXPORT DATABASE {_quoted(Path(folder))} (FORMAT PARQUET, COMPRESSION ZSTD)")
        for path in sorted(Path(folder).iterdir()):
            yield path.name, path.read_bytes()


def build_project(files: dict[str, bytes], target: Path) -> None:
    """A new DuckDB file at `target` (which must not exist) holding the snapshot: written beside
    it and renamed into place, so a failed join leaves nothing behind."""
    partial = target.with_name(f".{target.name}.joining")
    partial.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="studio-snapshot-", dir=target.parent) as folder:
        here = Path(folder)
        for name, data in files.items():
            if "/" in name or name.startswith("."):
                raise ValueError(f"a snapshot file may not be named {name!r}")
            (here / name).write_bytes(data)
        load = (here / LOAD_FILE).read_text(encoding="utf-8")
        (here / LOAD_FILE).write_text(
            _COPY_SOURCE.sub(lambda m: f"FROM '{(here / m.group(2)).as_posix()}'", load), encoding="utf-8"
        )
        try:
            with duckdb.connect(str(partial)) as con:
                con.execute(f"IMPORT DATABASE {_quoted(here)}")
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
    partial.rename(target)
