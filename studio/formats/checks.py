"""Ids and names read from a file, checked (`studio.domain.names`) with the file and line they
are on, so a refusal says where to look."""

from __future__ import annotations

from studio.domain.errors import InputError, quoted
from studio.domain.names import composed, id_problem, name_problem


def checked_id(value: str, what: str, source: str, line: int) -> str:
    """`value` when it is a valid qid or docid (`what` says which), else an `InputError`."""
    problem = id_problem(value)
    if problem is not None:
        raise InputError(source, line, f"{what} {quoted(value)} {problem}")
    return value


def checked_name(value: str, what: str, source: str, line: int | None) -> str:
    """`value` when it is a valid name of a `what` (run, system, …), else an `InputError`."""
    problem = name_problem(value, what)
    if problem is not None:
        raise InputError(source, line, f"{what} name {quoted(value)} {problem}")
    return composed(value)
