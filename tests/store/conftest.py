"""What the staging tests of the fast path share: one in-memory project and a folder of files."""

from __future__ import annotations

import gzip
import itertools
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import WriteFile

from studio.store.database import Connection, Database


@pytest.fixture(scope="module")
def con() -> Iterator[Connection]:
    database = Database(":memory:")
    yield database.connection
    database.close()


@pytest.fixture(scope="module")
def write_file() -> Iterator[WriteFile]:
    """Writes bytes to a fresh file of one folder (gzipped when asked) and returns its path."""
    counter = itertools.count()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)

        def write(data: bytes, compress: bool) -> Path:
            path = folder / f"f{next(counter)}{'.gz' if compress else '.txt'}"
            path.write_bytes(gzip.compress(data) if compress else data)
            return path

        yield write
