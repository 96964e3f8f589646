"""The roles of the test process's PostgreSQL server (`pg_cluster` in tests/conftest.py): a
coordinator, three members and a role outside every team."""

from __future__ import annotations

PG_COORDINATOR = "coordinator"
PG_MEMBERS = ("alice", "bob", "carol")
PG_OUTSIDER = "mallory"
