"""What `studio check` found: one result per check, the judge runs by state, and notes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Problems listed per check; the count says how many there were in all.
EXAMPLES = 10


@dataclass
class CheckResult:
    """One check: what it verifies, how many things it looked at, what it found wrong."""

    name: str
    what: str
    checked: int = 0
    problems: int = 0
    examples: list[str] = field(default_factory=list)

    def problem(self, text: str) -> None:
        self.found(1, [text])

    def found(self, count: int, examples: list[str]) -> None:
        """`count` problems, some of them described in `examples`."""
        self.problems += count
        self.examples.extend(examples[: EXAMPLES - len(self.examples)])

    @property
    def ok(self) -> bool:
        return self.problems == 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "check": self.name,
            "what": self.what,
            "ok": self.ok,
            "checked": self.checked,
            "problems": self.problems,
            "examples": self.examples,
        }


@dataclass
class CheckReport:
    project: str
    checks: list[CheckResult]
    judge_runs: dict[str, int]
    notes: list[str]

    @property
    def problems(self) -> int:
        return sum(check.problems for check in self.checks)

    @property
    def ok(self) -> bool:
        return self.problems == 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "ok": self.ok,
            "problems": self.problems,
            "checks": [check.as_dict() for check in self.checks],
            "judge_runs": self.judge_runs,
            "notes": self.notes,
        }
