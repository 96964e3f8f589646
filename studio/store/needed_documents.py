"""Which documents the project points at: the ones its runs rank and its label sets judge."""

from __future__ import annotations

from studio.domain.models import ANSWER_PREFIX
from studio.store.database import Connection


def needed_docids(con: Connection) -> set[str]:
    """Every docid a run ranks or a label set labels (generated answers are no documents)."""
    rows = con.execute("SELECT docid FROM ranking_docs UNION SELECT docid FROM labels").fetchall()
    return {docid for (docid,) in rows if not docid.startswith(ANSWER_PREFIX)}
