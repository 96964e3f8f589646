"""The last check before a name is stored: composed (NFC), and unlike every name of its kind.

Every door checks a name's form (`studio.domain.names.check_name`); only the project file knows
the names already taken, so the look-alike rule is kept here, where each kind of name is created.
"""

from __future__ import annotations

from collections.abc import Sequence

from studio.domain.names import check_new_name, composed
from studio.store.database import Connection

# The kinds of names, as (table, column) holding them.
NAME_COLUMNS = {
    "label set": ("label_sets", "name"),
    "run": ("runs", "name"),
    "bank": ("banks", "name"),
    "audit": ("audits", "name"),
    "system": ("responses", "system"),
}


def taken_names(con: Connection, what: str) -> list[str]:
    table, column = NAME_COLUMNS[what]
    return [str(name) for (name,) in con.execute(f"SELECT DISTINCT {column} FROM {table}").fetchall()]


def new_names(con: Connection, what: str, names: Sequence[str]) -> list[str]:
    """`names` (composed) for new `what`s when none looks like a taken one or like another of
    them; else the `UsageError` of `check_new_name`."""
    taken = taken_names(con, what)
    chosen: list[str] = []
    for name in names:
        chosen.append(check_new_name(name, what, taken))
        taken.append(chosen[-1])
    return chosen


def new_name(con: Connection, what: str, name: str) -> str:
    """`name` (composed) for a new `what` (`new_names`)."""
    return new_names(con, what, [name])[0]


def refuse_look_alike(con: Connection, what: str, name: str) -> None:
    """Before long work that ends in creating `name`: refuse it now when another taken name of its
    kind reads the same (the same name itself is the caller's to replace or refuse)."""
    name = composed(name)
    others = [taken for taken in taken_names(con, what) if taken != name]
    check_new_name(name, what, others)
