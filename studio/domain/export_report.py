"""What an export wrote, for the person who asked for it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ExportReport:
    """What was written where, and what the format could not carry."""

    what: str
    name: str
    target: str
    counts: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def summary(self) -> str:
        counted = ", ".join(f"{value:,} {key}" for key, value in self.counts.items())
        return f"exported {self.what} {self.name} to {self.target}: {counted}"
