"""Table 4.5 of the thesis as it prints it: one row per model × author group (× test collection,
unless the collections are pooled), one column group per method (mean agreement, its variance and
the cells it rests on)."""

from __future__ import annotations

from collections.abc import Sequence

from studio.domain.prompt_study import STUDY_METHODS, StudyGroup, StudyTableRow

POOLED_SEPARATOR = "+"  # a pooled group's collection column: dl20+dl21


def table_rows(groups: Sequence[StudyGroup]) -> list[StudyTableRow]:
    """The groups pivoted: rows by model, group and collection (in that order), methods as columns."""
    by_row: dict[tuple[str, str, str], dict[str, StudyGroup]] = {}
    for group in groups:
        by_row.setdefault((group["model"], group["group"], group["collection"]), {})[group["method"]] = group
    rows: list[StudyTableRow] = []
    for (model, group_name, collection), methods in sorted(by_row.items()):
        row: dict[str, object] = {"model": model, "group": group_name, "collection": collection}
        for method in STUDY_METHODS:
            found = methods.get(method)
            row[f"{method}_mean"] = found["mean"] if found else None
            row[f"{method}_variance"] = found["variance"] if found else None
            row[f"{method}_cells"] = found["cells"] if found else 0
        rows.append(StudyTableRow(**row))  # type: ignore[typeddict-item]
    return rows
