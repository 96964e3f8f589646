"""The rows of an executed DuckDB query as dicts, checked against the TypedDict they stand for."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar, cast

from studio.domain.errors import ProjectError

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection as Connection

Row = TypeVar("Row")


def typed_records(cursor: Connection, row: type[Row]) -> list[Row]:
    """The rows of an executed query as the TypedDict `row`, whose keys must be the query's column
    names (checked: a renamed column fails here, not as a missing key in a front end)."""
    names = {column[0] for column in cursor.description}
    declared = vars(row)  # a TypedDict class keeps its keys here
    required, optional = declared["__required_keys__"], declared["__optional_keys__"]
    if not required <= names <= required | optional:
        raise ProjectError(f"query columns {sorted(names)} are not those of {row.__name__}: {sorted(required)}")
    return cast(list[Row], records(cursor))


def records(cursor: Connection) -> list[dict[str, Any]]:
    """The rows of an executed query as dicts keyed by column name."""
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
