"""`studio audit …`: samples of an LLM label set's pool with known inclusion probabilities, their
gold labels, and how big a sample a target interval width needs."""

from __future__ import annotations

import typer

commands = typer.Typer(name="audit", help="Audit samples: draw, grade, import gold labels, plan.",
                       no_args_is_help=True)
