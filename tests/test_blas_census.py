"""tests/blas_tests.txt, the tests `make check-kernel` runs again on a second OpenBLAS kernel, names
only tests that exist: pytest would refuse a renamed or removed one only in that pass, after the
whole suite; this says so in the first, naming the lines to make again (`make blas-census`)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).parent.parent
LISTED = ROOT / "tests" / "blas_tests.txt"


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


def test_every_listed_test_exists() -> None:
    lines = LISTED.read_text().splitlines()
    assert lines, "the census found no test: `make blas-census`"
    missing = []
    for nodeid in lines:
        file, _, name = nodeid.partition("::")
        path = ROOT / file
        top = name.split("::")[0].split("[")[0]  # the function, class or assigned test case
        if not path.is_file() or (top and top not in defined_names(path)):
            missing.append(nodeid)
    assert not missing, f"gone since the census (run `make blas-census`): {missing[:5]}"


def test_the_list_is_one_node_id_a_line_and_sorted() -> None:
    lines = LISTED.read_text().splitlines()
    assert all(line and not line.startswith(("#", " ")) and line.startswith("tests/") for line in lines)
    assert lines == sorted(set(lines))
