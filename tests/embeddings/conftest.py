"""Fixtures of the embedding tests: the bundled model, loaded once, and sample projects."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from embedding_helpers import LookupEmbedder, document_texts
from helpers import copy_project

from studio import Project
from studio.judges.embedder import Embedder
from studio.services.judging.embeddings import embed


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The bundled all-MiniLM-L6-v2 (torch is imported once per test process)."""
    return Embedder()


@pytest.fixture(scope="session")
def document_vectors(embedder: Embedder) -> dict[str, np.ndarray]:
    """docid -> the model's vector of every sample passage, encoded directly (no cache)."""
    texts = document_texts()
    return dict(zip(texts, embedder.encode(list(texts.values())), strict=True))


@pytest.fixture(scope="session")
def cached_sample_template(
    tmp_path_factory: pytest.TempPathFactory,
    sample_template: Path,
    embedder: Embedder,
    document_vectors: dict[str, np.ndarray],
) -> Path:
    """The sample project with the vector of every passage already in its embedding cache."""
    path = tmp_path_factory.mktemp("embedded-sample") / "sample.duckdb"
    shutil.copyfile(sample_template, path)
    texts = document_texts()
    lookup = LookupEmbedder(embedder.name, {texts[d]: v for d, v in document_vectors.items()})
    with Project.sample(path) as project:
        embed(project.db, lookup, list(texts.values()))
    return path


@pytest.fixture()
def cached_sample(cached_sample_template: Path, tmp_path: Path) -> Path:
    """A fresh copy of the sample project whose passages are all embedded."""
    return copy_project(cached_sample_template, tmp_path, "cached.duckdb")
