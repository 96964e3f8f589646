"""How the report writes values into cells and names its figure files."""

from __future__ import annotations

import re
from pathlib import PureWindowsPath
from typing import Any

import numpy as np

from studio.domain.report import Cell


def statistic(value: Any) -> float | None:
    """A statistic as a cell: NaN (undefined) becomes None, shown as a dash."""
    return None if value is None or (isinstance(value, float) and np.isnan(value)) else float(value)


def grade_text(value: float | None) -> str | None:
    # Grades are labels, not statistics: 3 rather than 3.000, fractions exactly.
    return None if value is None else f"{value:g}"


def source_name(text: str | None) -> str | None:
    """Where a label set or bank came from, without the folders of the machine that imported it."""
    if text is None or ("/" not in text and "\\" not in text):
        return text  # e.g. `judge:simulated`
    return PureWindowsPath(text).name  # a Windows path splits at slashes and backslashes alike


class FigureNames:
    """File names for figures: label set names made safe for a path, never twice the same."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def __call__(self, prefix: str, label_set: str | None = None) -> str:
        stem = prefix if label_set is None else f"{prefix}-{re.sub(r'[^A-Za-z0-9._-]+', '-', label_set).strip('-.')}"
        name, n = stem, 1
        while name in self.used:
            n += 1
            name = f"{stem}-{n}"
        self.used.add(name)
        return name


def cell(value: Any) -> Cell:
    if value is None or isinstance(value, str | int):
        return value
    if isinstance(value, float | np.floating):
        return statistic(float(value))
    return str(value)
