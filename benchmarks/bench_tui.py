"""The studio's responsiveness on the sample project (docs/design.md#6-performance-budgets: a
review keypress re-renders in < 50 ms p95; the app starts in < 1 s).

Prints one JSON object:
* `startup`: seconds from a fresh Python process to the Review screen showing its first pair
  (imports, opening the project, building the queue, first paint), median of 5 after a start
  that fills the bytecode cache, beside the same for a one-widget Textual app (the anchor: what
  any Textual app costs), both with Python's bytecode cache on as an installed studio has it;
  and the CPU seconds each process used in all (start to exit), which a busy machine does not
  inflate as it does the wall clock;
* `keypress`: over 100 review decisions (keys 0–3 in turn), milliseconds from the key event to
  the first frame painted with the next pair (the decision is saved behind it, in a worker): p50,
  p95, max; beside the same for a one-widget app that updates a label per key (the anchor);
* `saved`: over 30 more decisions, each waited for, milliseconds from the key event to the first
  frame painted after its write landed (the label edit and log entry saved, τ and κ shown).
Both run headless (Textual's test driver) at 120x36.
Usage: python -m benchmarks.bench_tui
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SIZE = (120, 36)
DECISIONS = 100
TIMEOUT = 10.0  # seconds: a benchmark that waits forever measures nothing

STARTUP_STUDIO = """
import asyncio, sys, time
start = time.perf_counter()
from studio.services.project import Project
from studio.tui.app import StudioApp

async def main():
    with Project.open(sys.argv[1]) as project:
        app = StudioApp(project, screen="review")
        async with app.run_test(size=(120, 36)) as pilot:
            while not getattr(app.screen, "loaded", False):
                await pilot.pause(0.005)
            await pilot.pause()
            print(time.perf_counter() - start)

asyncio.run(main())
"""

STARTUP_ANCHOR = """
import asyncio, time
start = time.perf_counter()
from textual.app import App
from textual.widgets import Footer, Header, Static

class Hello(App):
    def compose(self):
        yield Header()
        yield Static("hello", id="hello")
        yield Footer()

async def main():
    app = Hello()
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        print(time.perf_counter() - start)

asyncio.run(main())
"""


def compiled_env(cache: str) -> dict[str, str]:
    """The environment of a start as a person's: Python's bytecode cache on (in `cache`, outside
    the checkout), whatever PYTHONDONTWRITEBYTECODE says here. Without it the studio's own modules
    would be compiled from source at every start while Textual's (the anchor's) come compiled from
    site-packages, and the ratio would measure the compiler."""
    env = {**os.environ, "PYTHONPYCACHEPREFIX": cache}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def startup(code: str, *args: str, repeats: int = 5, env: dict[str, str] | None = None) -> tuple[float, float]:
    """The median seconds to ready of `repeats` fresh processes, after one start that fills the
    bytecode cache (not counted), and the median CPU seconds (user and system) each process spent
    in all: on a busy machine the wall clock counts the others' work too, the CPU time does not."""
    times, cpu = [], []
    for run in range(repeats + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(
            [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True, timeout=120, env=env
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if run:
            times.append(float(done.stdout.strip().splitlines()[-1]))
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(times), statistics.median(cpu)


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50_ms": round(statistics.median(ordered) * 1000, 2),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 2),
        "max_ms": round(ordered[-1] * 1000, 2),
        "samples": len(ordered),
    }


class PaintClock:
    """Records when the app sends a frame to the terminal (its `_display` call), and the first
    frame painted once `until()` holds (the frame that shows a change)."""

    def __init__(self, app: Any) -> None:
        self.last = 0.0
        self.until: Any = None
        self.shown: float | None = None
        original = app._display

        def display(screen: Any, renderable: Any) -> None:
            original(screen, renderable)
            self.last = time.perf_counter()
            if self.until is not None and self.shown is None and self.until():
                self.shown = self.last

        app._display = display


async def key_to_paint(app: Any, clock: PaintClock, key: str, changed: Any) -> float:
    """Seconds from posting `key` to the first frame painted while `changed()` holds: the
    handler's work and the repaint, without the test driver's idle waits. The frame is caught
    as it is painted, so a repaint that comes before this coroutine wakes up still counts."""
    from textual import events

    clock.until, clock.shown = changed, None
    start = time.perf_counter()
    app.post_message(events.Key(key, key))
    while clock.shown is None:
        await asyncio.sleep(0.0005)
        if time.perf_counter() - start > TIMEOUT:
            what = "handled" if not changed() else "painted"
            raise TimeoutError(f"key {key!r} was not {what} within {TIMEOUT} s")
    return clock.shown - start


async def review_decisions(path: Path) -> tuple[list[float], float]:
    """Key-to-paint seconds of DECISIONS review decisions, and how long the queue took to build."""
    from studio.services.project import Project
    from studio.tui.app import StudioApp
    from studio.tui.screens.review import ReviewScreen

    samples = []
    with Project.open(path) as project:
        app = StudioApp(project, screen="review", person="bench")
        async with app.run_test(size=SIZE) as pilot:
            clock = PaintClock(app)
            start = time.perf_counter()
            while not getattr(app.screen, "loaded", False):
                await pilot.pause(0.01)
            ready = time.perf_counter() - start
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ReviewScreen) and screen.session is not None
            session = screen.session
            for n in range(DECISIONS):
                position = session.position
                samples.append(await key_to_paint(app, clock, str(n % 4), lambda p=position: session.position != p))
            await app.workers.wait_for_complete()  # no query still running when the file closes
    return samples, ready


async def review_latency(path: Path) -> list[float]:
    return (await review_decisions(path))[0]


async def saved_latency(path: Path, decisions: int = 30) -> list[float]:
    """Key-to-paint seconds of decisions until their write landed and its figures are painted."""
    from studio.services.project import Project
    from studio.tui.app import StudioApp
    from studio.tui.screens.review import ReviewScreen

    samples = []
    with Project.open(path) as project:
        app = StudioApp(project, screen="review", person="bench")
        async with app.run_test(size=SIZE) as pilot:
            clock = PaintClock(app)
            while not getattr(app.screen, "loaded", False):
                await pilot.pause(0.01)
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ReviewScreen) and screen.session is not None
            session = screen.session
            for n in range(decisions):

                def landed(made: int = session.decisions_made) -> bool:
                    return session.decisions_made != made and not screen.pending

                samples.append(await key_to_paint(app, clock, str(n % 4), landed))
            await app.workers.wait_for_complete()
    return samples


async def anchor_latency() -> list[float]:
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    class Counter(App[None]):
        BINDINGS = [(str(g), "count", "count") for g in range(4)]
        count = 0

        def compose(self) -> ComposeResult:
            yield Static("0", id="n")

        def action_count(self) -> None:
            self.count += 1
            self.query_one("#n", Static).update(str(self.count))

    samples = []
    app = Counter()
    async with app.run_test(size=SIZE) as pilot:
        clock = PaintClock(app)
        await pilot.pause()
        for n in range(DECISIONS):
            before = app.count
            samples.append(await key_to_paint(app, clock, str(n % 4), lambda b=before: app.count != b))
    return samples


def main() -> None:
    from studio.services.project import Project

    figures: dict[str, Any] = {"benchmark": "tui", "size": list(SIZE)}
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "sample.duckdb"
        Project.sample(path).close()
        env = compiled_env(str(Path(scratch) / "pycache"))
        studio_start, studio_cpu = startup(STARTUP_STUDIO, str(path), env=env)
        anchor_start, anchor_cpu = startup(STARTUP_ANCHOR, env=env)
        figures["startup"] = {
            "review_ready_seconds": round(studio_start, 3),
            "textual_hello_seconds": round(anchor_start, 3),
            "ratio_to_anchor": round(studio_start / anchor_start, 2),
            "budget_ratio": 2.5,
            "review_cpu_seconds": round(studio_cpu, 3),
            "textual_hello_cpu_seconds": round(anchor_cpu, 3),
            "cpu_ratio_to_anchor": round(studio_cpu / anchor_cpu, 2),
            "budget_seconds": 1.0,
        }
        review = percentiles(asyncio.run(review_latency(path)))
        anchor = percentiles(asyncio.run(anchor_latency()))
        figures["keypress"] = {
            "review": review,
            "anchor_one_label": anchor,
            "p95_ratio_to_anchor": round(review["p95_ms"] / anchor["p95_ms"], 2),
            "budget_p95_ratio": 1.5,
            "budget_p95_ms": 50,
        }
        figures["saved"] = {"review": percentiles(asyncio.run(saved_latency(path)))}
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
