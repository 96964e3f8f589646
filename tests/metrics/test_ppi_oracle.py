"""The studio's estimator against ppi-python's `ppi_mean_ci` where their settings coincide: a
population so large that the finite-population correction and the t quantile vanish."""

from __future__ import annotations

import numpy as np
import pytest

from studio.metrics import ppi

ppi_py = pytest.importorskip(
    "ppi_py", reason="ppi-python, an oracle of the dev extra, is not installed: pip install -e '.[dev]'"
)

UNITS, SAMPLE = 200_000, 4_000


def _setting() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    gold = rng.beta(2, 3, size=(UNITS, 1))
    llm = np.clip(0.8 * gold + rng.normal(0.1, 0.1, size=gold.shape), 0, 1)
    mask = np.zeros(UNITS)
    mask[rng.choice(UNITS, SAMPLE, replace=False)] = 1
    return gold, llm, mask


@pytest.mark.parametrize(("estimator", "lam"), [("ppi", 1.0), ("cross-fit", None), ("ppi++", None)])
def test_matches_ppi_py_in_the_infinite_population_limit(estimator: str, lam: float | None) -> None:
    gold, llm, mask = _setting()
    a, b = gold / UNITS, llm / UNITS
    found = ppi.estimate_totals(mask, a, b, np.full(UNITS, SAMPLE / UNITS), estimator=estimator)
    s = mask > 0
    low, high = ppi_py.ppi_mean_ci(gold[s, 0], llm[s, 0], llm[:, 0], alpha=0.05, lam=lam)
    assert found.low[0, 0] == pytest.approx(float(np.ravel(low)[0]), abs=2e-4)
    assert found.high[0, 0] == pytest.approx(float(np.ravel(high)[0]), abs=2e-4)
    if lam is None:
        assert 0 < found.lam[0, 0] < 1
