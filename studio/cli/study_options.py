"""The prompt-sensitivity study's options, shared by `studio sensitivity report` and `studio
report` (whose Prompt sensitivity section takes them): how agreement is taken and grouped.

The thesis's Table 4.5: `--ref-relevant 2 --binarise-ref 2 --pool-collections` (docs/sensitivity.md).
"""

from __future__ import annotations

from typing import Annotated

import typer

from studio.cli import grades
from studio.cli.options import RelevantOption
from studio.domain.choices import VarianceKind

RefRelevant = Annotated[
    float,
    typer.Option(
        "--ref-relevant", parser=grades.grade, help="The reference's lowest relevant grade (binary κ; TREC DL: 2)."
    ),
]
JudgeRelevant = RelevantOption  # a binary judge's lowest relevant grade (binary κ)
Variance = Annotated[
    VarianceKind,
    typer.Option("--variance", help="Variance across a group's prompts: sample (n − 1) or population (n)."),
]
BinariseRef = Annotated[
    float | None,
    typer.Option(
        "--binarise-ref",
        parser=grades.grade,
        help="Graded κ against the reference binarised at this grade, the judge's 0–3 kept (the thesis's Table 4.5).",
        show_default=False,
    ),
]
PoolCollections = Annotated[
    bool,
    typer.Option(
        "--pool-collections",
        help="A group's mean and variance over its prompts' cells of every test collection (the thesis's Table 4.5).",
    ),
]
