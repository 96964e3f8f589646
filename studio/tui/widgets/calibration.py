"""`c` on the Leaderboard: a calibrated label set's curve — per bin of the LLM's value, the people's
mean grade and the fitted map — and its cross-fitted κ and τ beside the raw set's, in a modal."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

from studio.domain.views import CalibrationView
from studio.tui.bindings import bindings_of


def _fmt(value: object) -> str:
    return f"{value:.3f}" if isinstance(value, float) else "–" if value is None else str(value)


def calibration_markdown(view: CalibrationView) -> str:
    f = view.figures
    rows = "\n".join(
        f"| {b['low']:.2f}–{b['high']:.2f} | {b['pairs']} | {b['mean_llm']:.2f} | {b['mean_gold']:.2f} | "
        f"{b['fitted']:.2f} |"
        for b in view.curve
    )
    return (
        f"# Calibration of {view.source} to {view.gold}\n\n"
        f"`{view.name}` ({view.method}, cross-fitted over {f.get('folds')} folds of "
        f"{f.get('topics')} topics, {f.get('pairs')} gold pairs)\n\n"
        f"| on held-out gold pairs | raw | calibrated |\n|---|---|---|\n"
        f"| graded κ | {_fmt(f.get('kappa_raw'))} | {_fmt(f.get('kappa_calibrated'))} |\n"
        f"| linear κ | {_fmt(f.get('kappa_linear_raw'))} | {_fmt(f.get('kappa_linear_calibrated'))} |\n"
        f"| leaderboard τ | {_fmt(f.get('tau_raw'))} | {_fmt(f.get('tau_calibrated'))} |\n"
        f"| mean grade (people: {_fmt(f.get('mean_gold'))}) | {_fmt(f.get('mean_raw'))} | "
        f"{_fmt(f.get('mean_calibrated'))} |\n\n"
        f"## Curve\n\n| LLM value | pairs | mean LLM | mean people | map |\n|---|---|---|---|---|\n{rows}\n"
    )


class CalibrationScreen(ModalScreen[None]):
    BINDINGS = bindings_of("calibration")
    DEFAULT_CSS = """
    CalibrationScreen { align: center middle; }
    CalibrationScreen > VerticalScroll {
        width: 80%; max-width: 100; height: 80%; border: thick $accent; background: $surface; padding: 1 2;
    }
    """

    def __init__(self, view: CalibrationView) -> None:
        super().__init__()
        self._markdown = calibration_markdown(view)

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(self._markdown)
