"""The layer contract of docs/design.md#3-architecture, beside the import-linter contracts of
pyproject.toml (`[tool.importlinter]`, run by `lint-imports` in `make lint`).

Here: that `lint-imports` holds on the tree and fails on a planted forbidden import; what the
contracts cannot say (no two modules import each other, through grimp's graph; a front end never
reaches `project.db`; only the store runs SQL; no module past 400 lines); and, dynamically, what a
fresh interpreter loads with a pure layer.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import grimp
import pytest

STUDIO = Path(__file__).resolve().parents[1] / "studio"
ROOT = STUDIO.parent


def studio_modules() -> list[tuple[str, Path]]:
    modules = []
    for path in sorted(STUDIO.rglob("*.py")):
        # A package's __init__ keeps its name, so relative imports resolve against the package.
        modules.append((".".join(path.relative_to(ROOT).with_suffix("").parts), path))
    return modules


def layer_of(module: str) -> str:
    """`studio.store.labels` -> 'store'; the root modules (studio/__init__, __main__) -> ''."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 else ""


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """`lint-imports` run on the `studio` package under `root` with the pyproject.toml there."""
    program = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or "lint-imports"
    env = {**os.environ, "PYTHONPATH": str(root)}  # the copy's package, before the installed one
    return subprocess.run(
        [program, "--no-cache"], cwd=root, env=env, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.process  # runs lint-imports
def test_the_import_contracts_hold() -> None:
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


# Three imports the contracts forbid, each planted as a module of its own in a copy of the package.
PLANTED = {
    "domain/planted_upward.py": "from studio.services.project import Project\n",  # a pure layer reaching up
    "store/planted_widget.py": "def later():\n    import textual\n",  # textual outside tui/, inside a function
    "cli/planted_back_door.py": "from studio.services.views import review\n",  # a front end past the facade
}


@pytest.mark.process  # runs lint-imports on a copy
def test_lint_imports_fails_on_a_planted_forbidden_import(tmp_path: Path) -> None:
    shutil.copytree(STUDIO, tmp_path / "studio", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    for name, source in PLANTED.items():
        (tmp_path / "studio" / name).write_text(source, encoding="utf-8")
    done = lint_imports(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    for name in PLANTED:
        assert "studio." + name.removesuffix(".py").replace("/", ".") in done.stdout, done.stdout


def import_graph() -> dict[str, set[str]]:
    """Module -> the studio modules it imports (inside functions too), from grimp's graph (the one
    lint-imports reads); packages left out, as a package's __init__ only hands names on."""
    graph = grimp.build_graph("studio", cache_dir=None)
    packages = {m for m in graph.modules if graph.find_children(m)}
    return {
        module: graph.find_modules_directly_imported_by(module) - packages - {module}
        for module in graph.modules
        if module not in packages
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_between_studio_modules() -> None:
    assert cycles(import_graph()) == []


def test_the_cycle_finder_sees_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


MAX_MODULE_LINES = 400


def test_no_module_is_longer_than_the_limit() -> None:
    long = {m: n for m, path in studio_modules() if (n := len(path.read_text("utf-8").splitlines())) > MAX_MODULE_LINES}
    assert not long, long


def test_every_services_family_says_what_it_is_for() -> None:
    services = STUDIO / "services"
    families = [p for p in services.iterdir() if p.is_dir() and not p.name.startswith("_")]
    assert len(families) >= 6
    for family in families:
        docstring = ast.get_docstring(ast.parse((family / "__init__.py").read_text("utf-8")))
        assert docstring, f"services/{family.name}/__init__.py has no docstring"
        assert "\n" not in docstring, f"services/{family.name}: one line says what the family does"


def contracts() -> list[dict[str, object]]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        contracts: list[dict[str, object]] = tomllib.load(file)["tool"]["importlinter"]["contracts"]
    return contracts


def test_the_layers_contract_names_every_layer_that_exists() -> None:
    layers = next(c for c in contracts() if c["type"] == "layers")["layers"]
    assert isinstance(layers, list)
    named = {name.strip() for layer in layers for name in layer.split(":")}
    existing = {f"studio.{p.name}" for p in STUDIO.iterdir() if (p / "__init__.py").exists()}
    assert named == existing


# What import-linter cannot see: a front end holding the project's database or engine, which it
# was handed through the facade. It asks the project instead.
def reaches_inside(source: str) -> list[int]:
    """Lines where `source` reads an attribute named `db` or `engine`."""
    return sorted(
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute) and node.attr in ("db", "engine")
    )


def test_front_ends_never_reach_the_projects_database_or_engine() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line} reaches .db/.engine: ask the project instead"
        for module, path in studio_modules()
        if layer_of(module) in ("cli", "tui")
        for line in reaches_inside(path.read_text("utf-8"))
    ]
    assert not found, "\n".join(found)


def test_the_reach_rule_flags_a_back_door() -> None:
    assert reaches_inside("def f(project):\n    return project.db.cursor()\n") == [2]
    assert reaches_inside("def f(project):\n    project.engine.forget_labels('x')\n") == [2]
    assert not reaches_inside("def f(project):\n    return project.leaderboard('human')\n")


# SQL is the store's: every query is a named function of studio/store/, and a service only hands
# it a connection (or its transaction's). Checked by name, as a static check must: no module
# outside the store calls a method named like a DuckDB statement runner, on anything.
SQL_METHODS = frozenset({"execute", "executemany", "sql"})


def sql_calls(source: str) -> list[tuple[int, str]]:
    """(line, method) of every call of an SQL method in `source`, e.g. `con.execute(...)`,
    `db.cursor().sql(...)`, inside functions too."""
    return sorted(
        (node.lineno, node.func.attr)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SQL_METHODS
    )


def sql_violations(modules: list[tuple[str, Path]]) -> list[str]:
    """`file:line` of every SQL call in the modules outside studio/store/."""
    root = STUDIO.parent
    return [
        f"{path.relative_to(root) if path.is_relative_to(root) else path}:{line} calls .{method}(...)"
        for module, path in modules
        if layer_of(module) != "store"
        for line, method in sql_calls(path.read_text("utf-8"))
    ]


def test_only_the_store_runs_sql() -> None:
    found = sql_violations(studio_modules())
    assert not found, (
        "SQL outside studio/store/: move each query into a named function of the store module"
        " where its concept lives, and call that instead\n" + "\n".join(found)
    )


@pytest.mark.parametrize(
    "source",
    [
        "def f(con):\n    return con.execute('SELECT 1').fetchone()\n",
        "def f(db):\n    return db.cursor().execute('SELECT 1').fetchall()\n",
        "def f(tx, rows):\n    tx.executemany('INSERT INTO t VALUES (?)', rows)\n",
        "import duckdb\nduckdb.sql('SELECT 1')\n",
        "class C:\n    def f(self):\n        with self.db.transaction() as tx:\n            tx.execute('DELETE')\n",
    ],
)
def test_the_sql_rule_flags_a_query(source: str) -> None:
    assert len(sql_calls(source)) == 1


def test_the_sql_rule_leaves_store_calls_and_other_names_alone() -> None:
    assert not sql_calls("def f(con):\n    return label_store.label_set_id(con, 'x')\n")
    assert not sql_calls("def f(x):\n    return x.executor, x.sql_text, execute(x)\n")


def test_the_sql_rule_reports_file_and_line_outside_the_store_only(tmp_path: Path) -> None:
    service, store = tmp_path / "service.py", tmp_path / "store.py"
    query = "def f(con):\n    x = 1\n    return con.execute('SELECT 1')\n"
    service.write_text(query, encoding="utf-8")
    store.write_text(query, encoding="utf-8")
    found = sql_violations([("studio.services.judging.x", service), ("studio.store.x", store)])
    assert found == [f"{service}:3 calls .execute(...)"]


def test_the_sql_rule_sees_the_modules_it_checks() -> None:
    # Not vacuous: the scan reaches the services, and the store's own queries are calls it sees.
    modules = studio_modules()
    assert sum(layer_of(m) == "services" for m, _ in modules) > 100
    assert sql_calls((STUDIO / "store" / "labels.py").read_text("utf-8"))


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=STUDIO.parent, timeout=60
    )


@pytest.mark.process
def test_pure_layers_load_no_database_ui_or_cli_library() -> None:
    result = run_python("""
        import sys
        import studio.domain, studio.formats.trec, studio.formats.banks
        loaded = [m for m in ('duckdb', 'textual', 'typer', 'rich') if m in sys.modules]
        assert not loaded, loaded
    """)
    assert result.returncode == 0, result.stderr


@pytest.mark.process
def test_the_command_line_loads_without_textual() -> None:
    result = run_python("""
        import sys
        import studio.cli.app
        assert 'textual' not in sys.modules
    """)
    assert result.returncode == 0, result.stderr


@pytest.mark.process
def test_the_python_api_imports_from_the_package() -> None:
    result = run_python("""
        import sys
        from studio import Project
        assert Project.__name__ == 'Project'
        assert 'textual' not in sys.modules and 'typer' not in sys.modules
    """)
    assert result.returncode == 0, result.stderr


TUI_IGNORES = 3


def test_the_tui_needs_at_most_three_type_ignores_each_with_a_reason() -> None:
    found = [
        (path.name, n, line)
        for path in (STUDIO / "tui").rglob("*.py")
        for n, line in enumerate(path.read_text("utf-8").splitlines(), start=1)
        if "type: ignore" in line
    ]
    assert len(found) <= TUI_IGNORES, found
    # A reason is a comment after the ignore: `# type: ignore[code]  # why`.
    assert all(line.split("type: ignore", 1)[1].count("#") >= 1 for _, _, line in found), found
