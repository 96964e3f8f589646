"""The lists of tests made by a census name only tests that exist, one node id a line, sorted:
tests/blas_tests.txt, the tests `make check-kernel` runs again on a second OpenBLAS kernel (pytest
would refuse a renamed or removed one only in that pass, after the whole suite), and
tests/slow_tests.txt, the in-process tests over half a second the edit loop's tier leaves out (a name
gone from it would put its test back in that tier unseen). Each failure names the census to run
again."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
# Each list, and the command that makes it again.
LISTS = {"blas_tests.txt": "make blas-census", "slow_tests.txt": "make slow-census"}


def defined_names(path: Path) -> set[str]:
    """What a module defines at its top level: test functions, test classes, and tests assigned
    (a hypothesis state machine's `TestCase`)."""
    names: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(target.id for target in node.targets if isinstance(target, ast.Name))
    return names


@pytest.mark.parametrize("listing", sorted(LISTS))
def test_every_listed_test_exists(listing: str) -> None:
    lines = (ROOT / "tests" / listing).read_text().splitlines()
    assert lines, f"the census found no test: `{LISTS[listing]}`"
    missing = []
    for nodeid in lines:
        file, _, name = nodeid.partition("::")
        path = ROOT / file
        top = name.split("::")[0].split("[")[0]  # the function, class or assigned test case
        if not path.is_file() or (top and top not in defined_names(path)):
            missing.append(nodeid)
    assert not missing, f"gone since the census (run `{LISTS[listing]}`): {missing[:5]}"


@pytest.mark.parametrize("listing", sorted(LISTS))
def test_the_list_is_one_node_id_a_line_and_sorted(listing: str) -> None:
    lines = (ROOT / "tests" / listing).read_text().splitlines()
    assert all(line and not line.startswith(("#", " ")) and line.startswith("tests/") for line in lines)
    assert lines == sorted(set(lines))
