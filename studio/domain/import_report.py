"""What an import did, for the person who asked for it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ImportReport:
    """Names created, counts loaded and anything worth a warning."""

    what: str
    files: list[str]
    names: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "what": self.what,
            "files": self.files,
            "names": self.names,
            "counts": self.counts,
            "warnings": self.warnings,
        }

    def summary(self) -> str:
        counted = ", ".join(f"{value:,} {key}" for key, value in self.counts.items())
        shown = self.names if len(self.names) <= 5 else [*self.names[:3], f"… {len(self.names) - 3} more"]
        named = f" as {', '.join(shown)}" if shown else ""
        return f"imported {self.what}{named}: {counted}"
