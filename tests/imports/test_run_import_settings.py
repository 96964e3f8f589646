"""A run import reads and inserts without keeping insertion order, and gives the connection back
as it found it: whatever the project does next on it keeps its rows' order."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.domain.errors import InputError
from studio.services.imports.trec import import_runs
from studio.store.database import Database


def keeps_insertion_order(db: Database) -> bool:
    row = db.cursor().execute("SELECT current_setting('preserve_insertion_order')").fetchone()
    assert row is not None
    return bool(row[0])


def test_an_import_and_a_refused_one_leave_the_connection_keeping_insertion_order(tmp_path: Path) -> None:
    db = Database(tmp_path / "p.duckdb")
    good = tmp_path / "good.txt"
    good.write_text("1\tQ0\td1\t1\t2.5\tbm25 \n1\tQ0\td2\t2\t1.5\tbm25\n", encoding="utf-8")
    bad = tmp_path / "bad.txt"
    bad.write_text("1 Q0 d1 1 2.5 other\n1 Q0 d1 2 1.5 other\n", encoding="utf-8")  # d1 ranked twice
    assert import_runs(db, [good]).counts == {"runs": 1, "rows": 2}
    assert keeps_insertion_order(db)
    with pytest.raises(InputError):
        import_runs(db, [bad])
    assert keeps_insertion_order(db)
    db.close()
