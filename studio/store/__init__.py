"""The only layer that talks to DuckDB: the project file, its schema and its queries."""

from studio.store.batches import new_batch
from studio.store.database import Connection, Database
from studio.store.fast_path import FastPathRefused

__all__ = ["Connection", "Database", "FastPathRefused", "new_batch"]
