"""Which OpenBLAS kernel the golden and statistics tests run on a second time (`make check`).

numpy's OpenBLAS picks a kernel for the CPU (Haswell, SkylakeX, Zen, …), and kernels add in
different orders, so the last digits of sums differ from machine to machine. `make check` runs the
golden and statistics tests again with OPENBLAS_CORETYPE set to a kernel this CPU runs that is not
the one OpenBLAS picked: printed by `python tests/blas_kernel.py` (nothing when there is none).
"""

from __future__ import annotations

import platform

import numpy  # noqa: F401  (loads OpenBLAS, for threadpoolctl to see it)
import threadpoolctl  # type: ignore[import-untyped]

# Kernels any x86-64 CPU of the last fifteen years runs (SSE4.2, then AVX), and Arm's baseline.
FALLBACKS = {"x86_64": ("Nehalem", "Sandybridge"), "AMD64": ("Nehalem", "Sandybridge"), "aarch64": ("ARMV8",)}


def chosen_kernel() -> str | None:
    """The kernel numpy's OpenBLAS runs on now."""
    found = [i.get("architecture") for i in threadpoolctl.threadpool_info() if i.get("internal_api") == "openblas"]
    return str(found[0]) if found and found[0] else None


def other_kernel() -> str | None:
    chosen = (chosen_kernel() or "").lower()
    return next((k for k in FALLBACKS.get(platform.machine(), ()) if k.lower() != chosen), None)


if __name__ == "__main__":
    print(other_kernel() or "")
