"""The embedding cache: one L2-normalised vector per (model, md5 of the text)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from studio.store.database import Connection


def cached_vectors(con: Connection, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
    """{text hash: float32 vector} of the stored embeddings among `hashes` (one query)."""
    if not hashes:
        return {}
    found = con.execute(
        "SELECT text_hash, vector FROM embeddings WHERE model = ? AND list_contains(?, text_hash)",
        [model, list(set(hashes))],
    ).fetchnumpy()
    return {
        str(text_hash): np.asarray(vector, dtype=np.float32)
        for text_hash, vector in zip(found["text_hash"], found["vector"], strict=True)
    }


def store_vectors(con: Connection, model: str, hashes: Sequence[str], vectors: np.ndarray) -> None:
    """Insert the rows of `vectors` under their text hashes (one statement); a hash already
    stored for the model keeps its vector, so a concurrent writer of the same text is harmless."""
    if len(hashes) != len(vectors):
        raise ValueError(f"{len(hashes)} hashes for {len(vectors)} vectors")
    if not hashes:
        return
    con.execute(
        "INSERT OR IGNORE INTO embeddings (model, text_hash, vector)"
        " SELECT ?, unnest(?::VARCHAR[]), unnest(?::FLOAT[][])",
        [model, list(hashes), np.asarray(vectors, dtype=np.float32).tolist()],
    )
