"""The FD@k leaderboard (`studio fd`): the Fréchet distance between the embeddings of each run's
top k documents and those of the documents a label set finds relevant (Arabzadeh & Clarke 2024).

TypedDicts, as in `rows.py`: plain dicts at run time (JSON as they are, key order included).
"""

from typing import TypedDict


class FdRow(TypedDict):
    run: str
    value: float | None  # FD@k, lower is better (None: fewer than two vectors on a side)
    documents: int  # the run's top-k documents that have a text (and, unjudged only, no label)


class FdLeaderboard(TypedDict):
    """FD@k of every run, the closest first, with its Kendall τ against the label set's leaderboard."""

    qrels: str
    measure: str  # FD@k, "(unjudged)" when only unjudged documents count
    k: int
    model: str  # the embedder
    relevant: float  # the label set's documents at grade ≥ this are the target
    ref_measure: str  # of the label set's leaderboard τ compares −FD with
    rows: list[FdRow]
    kendall_tau: float | None  # τ-b between −FD and the ref_measure leaderboard (None: undefined)
    relevant_documents: int  # target documents with a text
