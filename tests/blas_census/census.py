"""Joins the census plugin's lists (one per test process) into tests/blas_tests.txt, the tests
`make check-kernel` runs a second time on another OpenBLAS kernel (pytest reads the file's lines as
its arguments, `@tests/blas_tests.txt`: one node id a line, nothing else). See `make blas-census`.

Usage: python tests/blas_census/census.py FOLDER OUT
"""

from __future__ import annotations

import sys
from pathlib import Path


def join(folder: Path) -> list[str]:
    found: set[str] = set()
    for listed in folder.glob("*.txt"):
        found.update(line for line in listed.read_text().splitlines() if line)
    return sorted(found)


if __name__ == "__main__":
    tests = join(Path(sys.argv[1]))
    Path(sys.argv[2]).write_text("".join(f"{nodeid}\n" for nodeid in tests))
    print(f"{len(tests)} tests call BLAS or LAPACK: {sys.argv[2]}")
