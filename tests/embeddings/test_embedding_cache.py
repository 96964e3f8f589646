"""The embedding cache in the project file: a text is encoded once per model, whatever asks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from embedding_helpers import CountingEmbedder, HashEmbedder

from studio.services.judging.embeddings import embed, embed_counted, text_hash
from studio.store import Database
from studio.store import embeddings as embedding_store


@pytest.fixture()
def db(tmp_path: Path) -> Iterator[Database]:
    database = Database(tmp_path / "p.duckdb")
    yield database
    database.close()


def test_migration_7_creates_the_embedding_table(db: Database) -> None:
    con = db.cursor()
    assert 7 in {v for (v,) in con.execute("SELECT version FROM schema_version").fetchall()}
    columns = con.execute(
        "SELECT column_name, data_type FROM information_schema.columns"
        " WHERE table_name = 'embeddings' ORDER BY ordinal_position"
    ).fetchall()
    assert columns == [("model", "VARCHAR"), ("text_hash", "VARCHAR"), ("vector", "FLOAT[]")]


def test_a_second_embed_of_the_same_texts_encodes_nothing(db: Database) -> None:
    model = CountingEmbedder(HashEmbedder())
    texts = ["alpha", "beta", "gamma"]
    first = embed(db, model, texts)
    assert model.encoded == texts and model.calls == 1
    second = embed(db, model, texts)
    assert model.calls == 1  # no call at all the second time
    assert second.dtype == np.float32 and np.array_equal(first, second)
    assert np.array_equal(first, HashEmbedder().encode(texts))


def test_only_the_missing_texts_are_encoded_and_repeats_once(db: Database) -> None:
    model = CountingEmbedder(HashEmbedder())
    embed(db, model, ["alpha", "beta"])
    result = embed_counted(db, model, ["beta", "delta", "alpha", "delta", "epsilon"])
    assert model.encoded == ["alpha", "beta", "delta", "epsilon"]
    assert (result.encoded, result.cached) == (2, 2)
    # Rows follow the texts asked for, repeats included.
    assert np.array_equal(result.vectors, HashEmbedder().encode(["beta", "delta", "alpha", "delta", "epsilon"]))


def test_the_cache_is_kept_per_model(db: Database) -> None:
    small, other = CountingEmbedder(HashEmbedder("hash-8")), CountingEmbedder(HashEmbedder("other", dims=4))
    embed(db, small, ["alpha"])
    vectors = embed(db, other, ["alpha"])
    assert other.encoded == ["alpha"] and vectors.shape == (1, 4)


def test_the_vectors_survive_reopening_the_project(tmp_path: Path) -> None:
    path = tmp_path / "p.duckdb"
    with_cache = Database(path)
    stored = embed(with_cache, HashEmbedder(), ["ünïcode text", "plain"])
    with_cache.close()
    reopened = Database(path)
    model = CountingEmbedder(HashEmbedder())
    assert np.array_equal(embed(reopened, model, ["plain", "ünïcode text"]), stored[::-1])
    assert model.calls == 0
    reopened.close()


def test_no_text_no_call(db: Database) -> None:
    model = CountingEmbedder(HashEmbedder())
    assert embed(db, model, []).shape[0] == 0 and model.calls == 0


def test_store_round_trip_is_exact_and_keeps_the_first_vector(db: Database) -> None:
    vectors = np.random.default_rng(3).normal(size=(3, 5)).astype(np.float32)
    hashes = [text_hash(t) for t in ("a", "b", "c")]
    with db.transaction() as tx:
        embedding_store.store_vectors(tx, "m", hashes, vectors)
        embedding_store.store_vectors(tx, "m", hashes[:1], np.zeros((1, 5), dtype=np.float32))
    found = embedding_store.cached_vectors(db.cursor(), "m", [*hashes, "missing"])
    assert set(found) == set(hashes)
    for h, row in zip(hashes, vectors, strict=True):
        assert found[h].dtype == np.float32 and np.array_equal(found[h], row)
    assert embedding_store.cached_vectors(db.cursor(), "other", hashes) == {}
