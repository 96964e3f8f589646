"""Two-sided p-values that agree with t intervals: for an estimate θ̂ with standard error se and
an interval θ̂ ± t_{df}(1 − α/2)·se, the p-value of θ = 0 is

    p = 2 · P(T_df > |θ̂| / se),

so p < α exactly when the (1 − α) interval excludes 0 (the interval's quantile is the t
statistic at which p = α). A zero se (the sample is the whole population) gives p = 0 for a
non-zero estimate and 1 for a zero one; a df below 1 (no interval) gives NaN, an untested pair.
"""

from __future__ import annotations

import numpy as np


def two_sided_p(estimate: np.ndarray, se: np.ndarray, df: np.ndarray) -> np.ndarray:
    """p-values of estimate = 0 against Student's t with `df` degrees of freedom (broadcast)."""
    # scipy is imported when a p-value is asked for, as ppi.t_quantile does: not at start-up.
    from scipy.special import stdtr

    theta, spread, freedom = np.broadcast_arrays(
        np.asarray(estimate, dtype=np.float64), np.asarray(se, dtype=np.float64), np.asarray(df, dtype=np.float64)
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.abs(theta) / spread
        p = 2.0 * stdtr(np.maximum(freedom, 1.0), -t)
    exact = spread == 0
    p = np.where(exact, np.where(theta == 0, 1.0, 0.0), p)
    untestable = ~np.isfinite(theta) | ~np.isfinite(spread) | ~(freedom >= 1)
    result: np.ndarray = np.where(untestable, np.nan, np.minimum(p, 1.0))
    return result
