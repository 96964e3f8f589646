"""Live progress of long work (judging, extraction, probes) on stderr, when stderr is a terminal."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from studio.cli.output import stderr_console
from studio.domain.judging import JudgeProgress

T = TypeVar("T")


def progress_bar(events: Iterable[JudgeProgress | T], description: str) -> T:
    """Show the progress events of long work on stderr (a terminal only); return its last event."""
    console = stderr_console()
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[stats]}"),
        TimeRemainingColumn(),
    )
    result: list[T] = []
    with Progress(*columns, console=console, transient=False, disable=not console.is_terminal) as bar:
        task = bar.add_task(description, total=None, stats="")
        for event in events:
            if isinstance(event, JudgeProgress):
                bar.update(
                    task,
                    total=event.total,
                    completed=event.done,
                    stats=f"{event.rate:.1f}/s · {event.cache_hits} cached · {event.failures} failed",
                )
            else:
                result.append(event)
    if not result:
        raise RuntimeError(f"{description}: the work ended without a result")
    return result[-1]
