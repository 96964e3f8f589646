"""What `studio doctor` found: one named section per thing the studio needs or can use.

The report is a list of sections so that a new subject is one more section, never a new shape:
each says how it stands (`Status`), a one-line summary for people, facts for scripts (names and
values, never a secret), more lines for people when a line is not enough, and the command that
fixes it when something is missing or wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

# What a fact may hold: JSON's scalars and lists of names.
Fact = str | int | float | bool | None | list[str]


class Status(StrEnum):
    ok = "ok"
    absent = "absent"  # optional and not there: the studio works without it
    fail = "fail"  # needed and missing or broken: doctor exits 1


@dataclass(frozen=True)
class DoctorSection:
    """One subject of the report."""

    name: str
    status: Status
    summary: str
    facts: Mapping[str, Fact] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # more lines for people (paths, build features)
    fix: str | None = None  # the command (or step) that fixes what is missing or wrong

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status.value,
            "summary": self.summary,
            "facts": dict(self.facts),
            "notes": list(self.notes),
            "fix": self.fix,
        }


@dataclass(frozen=True)
class DoctorReport:
    """Every section, in the order they are shown."""

    sections: list[DoctorSection]

    @property
    def failed(self) -> list[str]:
        """The names of the sections that failed."""
        return [section.name for section in self.sections if section.status is Status.fail]

    @property
    def ok(self) -> bool:
        """Is everything the studio needs there (optional parts may be absent)?"""
        return not self.failed

    def section(self, name: str) -> DoctorSection:
        """The section called `name` (KeyError when there is none)."""
        for section in self.sections:
            if section.name == name:
                return section
        raise KeyError(name)

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "failed": self.failed, "sections": [s.as_dict() for s in self.sections]}
