"""The second pass of `make check` really runs on the kernel it forces."""

from __future__ import annotations

import os

import pytest
from blas_kernel import chosen_kernel, other_kernel


def test_a_forced_kernel_is_the_one_openblas_runs() -> None:
    forced = os.environ.get("OPENBLAS_CORETYPE")
    if not forced:
        pytest.skip("no kernel forced (OPENBLAS_CORETYPE unset): the first pass of make check")
    assert (chosen_kernel() or "").lower() == forced.lower()


def test_the_other_kernel_differs_from_the_chosen_one() -> None:
    other = other_kernel()
    if other is None:
        pytest.skip("no other kernel known for this CPU")
    assert other.lower() != (chosen_kernel() or "").lower()
