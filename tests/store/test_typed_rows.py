"""The rows the store hands out are the TypedDicts of `studio.domain.rows`: a query whose columns are
not a row's keys is refused at once, and the optional keys stay optional at run time."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from studio import Project
from studio.domain import rows
from studio.domain.errors import ProjectError
from studio.domain.rows import Disagreement, LabelEvent, TopicRow
from studio.store.database import typed_records


def test_columns_named_as_the_keys_give_the_rows() -> None:
    con = duckdb.connect()
    found = typed_records(con.execute("SELECT '1' AS qid, 'q' AS text, 2 AS docs, 1 AS judged"), TopicRow)
    assert found == [{"qid": "1", "text": "q", "docs": 2, "judged": 1}]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT '1' AS qid, 'q' AS text, 2 AS docs",  # a key missing
        "SELECT '1' AS qid, 'q' AS text, 2 AS docs, 1 AS judged, 0 AS extra",  # a column no key names
        "SELECT '1' AS qid, 'q' AS txt, 2 AS docs, 1 AS judged",  # a renamed column
    ],
)
def test_a_query_whose_columns_are_not_the_keys_is_refused(sql: str) -> None:
    with pytest.raises(ProjectError, match="TopicRow"):
        typed_records(duckdb.connect().execute(sql), TopicRow)


def test_not_required_keys_stay_optional_at_run_time() -> None:
    assert LabelEvent.__optional_keys__ == {"derived_blocked"}
    assert Disagreement.__optional_keys__ == {"decided", "spread", "spread_range"}
    # Every TypedDict of the module: a key is required unless declared NotRequired.
    for value in vars(rows).values():
        keys = vars(value) if isinstance(value, type) else {}
        if "__required_keys__" in keys:
            assert keys["__required_keys__"] | keys["__optional_keys__"] == set(value.__annotations__), value


def test_every_listing_of_a_project_is_read_through_its_row_type() -> None:
    with Project.open(":memory:") as project:
        for listing in (
            project.topics,
            project.documents,
            project.runs,
            project.label_sets,
            project.banks,
            project.responses,
            project.judge_runs,
            project.label_history,
        ):
            assert listing() == []


def test_label_set_names_are_the_listings_names_and_kinds(sample: Path) -> None:
    """Choosing a label set reads names and kinds alone; they are those the full listing gives."""
    with Project.open(sample) as project:
        listed = [{"name": row["name"], "kind": row["kind"]} for row in project.label_sets()]
        assert project.label_set_names() == listed
        assert {row["kind"] for row in listed} >= {"human", "llm"}  # not vacuous: the sample's sets
