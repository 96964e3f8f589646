"""The layer contract of DESIGN.md §3: who may import what, and who may run SQL.

Checked twice: statically (every module under studio/ parsed with `ast`, so a lazy import inside
a function counts too) and dynamically (a fresh interpreter imports a pure layer and shows what
got loaded along with it).
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

STUDIO = Path(__file__).resolve().parents[1] / "studio"
STDLIB = frozenset(sys.stdlib_module_names)

# Third-party packages only one layer may import.
EXCLUSIVE = {
    "duckdb": {"store"},
    "textual": {"tui"},
    "textual_plotext": {"tui"},
    "typer": {"cli"},
    "psycopg": {"store"},  # the team's PostgreSQL server: only store/ talks to databases
}

# Layers restricted to the standard library plus these studio layers (pure Python: no duckdb,
# textual, typer, rich or numpy).
STDLIB_ONLY = {
    "domain": {"domain"},
    "formats": {"domain", "formats"},
}

# Studio layers a layer must not import: imports point down the diagram, front ends stay apart.
FORBIDDEN_LAYERS = {
    "store": {"services", "cli", "tui"},
    "metrics": {"store", "services", "cli", "tui"},
    "judges": {"services", "cli", "tui"},
    "banks": {"services", "cli", "tui"},
    "services": {"cli", "tui"},
    "tui": {"cli"},
}


def allowed_table() -> dict[str, dict[str, object]]:
    """The rules above, spelled out per layer (shown when a test fails)."""
    layers = sorted({p.name for p in STUDIO.iterdir() if p.is_dir() and not p.name.startswith("_")})
    table: dict[str, dict[str, object]] = {}
    for layer in layers:
        table[layer] = {
            "only": None if layer not in STDLIB_ONLY else ["<stdlib>", *sorted(STDLIB_ONLY[layer])],
            "never": sorted(
                {pkg for pkg, owners in EXCLUSIVE.items() if layer not in owners} | FORBIDDEN_LAYERS.get(layer, set())
            ),
        }
    return table


def imported_names(source: str, module: str) -> set[str]:
    """Dotted names a module imports, relative imports resolved against `module`'s package."""
    package = module.rsplit(".", 1)[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names.add(target)
            # `from studio import store` imports the studio.store layer; `from a import b` may name a module a.b.
            names.update(f"{target}.{alias.name}" for alias in node.names)
    return names


def layer_of(module: str) -> str:
    """`studio.store.labels` -> 'store'; the root modules (studio/__init__, __main__) -> ''."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 else ""


def target_of(name: str) -> str:
    """`studio.store.labels` -> 'store', `studio` -> 'studio', `duckdb.typing` -> 'duckdb'."""
    parts = name.split(".")
    if parts[0] == "studio":
        return parts[1] if len(parts) > 1 else "studio"
    return parts[0]


def violations(module: str, source: str) -> list[str]:
    layer = layer_of(module)
    found = []
    for name in sorted(imported_names(source, module)):
        target = target_of(name)
        is_studio = name.split(".")[0] == "studio"
        if layer in STDLIB_ONLY:
            ok = target in STDLIB_ONLY[layer] if is_studio else target in STDLIB
            if not ok:
                found.append(
                    f"{module} imports {name} ({layer} allows only the stdlib and {sorted(STDLIB_ONLY[layer])})"
                )
        if not is_studio and target in EXCLUSIVE and layer not in EXCLUSIVE[target]:
            found.append(f"{module} imports {name} (only {sorted(EXCLUSIVE[target])} may)")
        if is_studio and target in FORBIDDEN_LAYERS.get(layer, set()):
            found.append(f"{module} imports {name} ({layer} must not import {target})")
    return found


def studio_modules() -> list[tuple[str, Path]]:
    root = STUDIO.parent
    modules = []
    for path in sorted(STUDIO.rglob("*.py")):
        # A package's __init__ keeps its name, so relative imports resolve against the package.
        modules.append((".".join(path.relative_to(root).with_suffix("").parts), path))
    return modules


def test_every_studio_module_keeps_its_layer_rules() -> None:
    found = [v for module, path in studio_modules() for v in violations(module, path.read_text(encoding="utf-8"))]
    assert not found, "layer rules broken:\n" + "\n".join(found) + f"\n\nrules: {allowed_table()}"


# The `Project` facade (services/project.py) is the front ends' only door to the services. It is
# put together from `services/facade/` (ProjectCore and one module per subject), which the view
# and report modules, the sessions a person works in and the sample project build on; every other
# service takes an engine or a database.
FACADE = "studio.services.project"
FACADE_IMPORTERS = ("studio.cli.", "studio.tui.")
FACADE_EXCEPTIONS = {"studio.__init__": "the package's face: `from studio import Project`"}  # module -> why
CORE = "studio.services.facade"
CORE_IMPORTERS = (
    FACADE,
    "studio.services.facade.",
    "studio.services.views.",
    "studio.services.review.",  # the Review session, its queue of conflicts and its figures
    "studio.services.audit.session",
    "studio.services.campaigns.session",
    "studio.services.report.",
    "studio.services.sample_project",
)


def facade_violations(module: str, source: str) -> list[str]:
    names = imported_names(source, module)
    found = []
    if FACADE in names and not module.startswith(FACADE_IMPORTERS) and module not in FACADE_EXCEPTIONS:
        found.append(f"{module} imports {FACADE}: only the front ends use the facade")
    core = sorted(n for n in names if n == CORE or n.startswith(CORE + "."))
    if core and module != FACADE and not module.startswith(CORE_IMPORTERS):
        found.append(f"{module} imports {core[0]}: services below the facade take an engine or a database")
    return found


def test_only_the_front_ends_import_the_facade_and_only_views_its_core() -> None:
    found = [v for module, path in studio_modules() for v in facade_violations(module, path.read_text("utf-8"))]
    assert not found, "\n".join(found)


def test_the_facade_rule_counts_imports_inside_functions() -> None:
    lazy = "def later():\n    from studio.services.project import Project\n"
    assert facade_violations("studio.services.judging.embeddings", lazy)
    assert facade_violations("studio.services.review.session", lazy)
    assert not facade_violations("studio.cli.context", lazy)
    assert facade_violations("studio.services.rubric.cover", "from studio.services import project\n")
    assert facade_violations("studio.services.rubric.cover", "from studio.services.facade.core import ProjectCore\n")
    assert not facade_violations(
        "studio.services.review.session", "from studio.services.facade.core import ProjectCore\n"
    )


# What a front end may import of the studio: the facade, the domain's types, the package's root
# (its version) and its own layer; the command line also opens the TUI.
FRONT_END_IMPORTS = {
    "cli": ("studio.cli", "studio.tui.app"),
    "tui": ("studio.tui",),
}
FRONT_END_SHARED = (FACADE, "studio.domain")


def front_end_violations(module: str, source: str) -> list[str]:
    layer = layer_of(module)
    if layer not in FRONT_END_IMPORTS:
        return []
    allowed = (*FRONT_END_SHARED, *FRONT_END_IMPORTS[layer])
    found = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").startswith("studio"):
            target = node.module or ""
            if target != "studio" and not any(target == a or target.startswith(a + ".") for a in allowed):
                found.append(f"{module} imports {target}: a front end uses the facade and the domain's types only")
        elif isinstance(node, ast.Import):
            found += [f"{module} imports {a.name}" for a in node.names if a.name.startswith("studio.")]
        elif isinstance(node, ast.Attribute) and node.attr in ("db", "engine"):
            found.append(f"{module} line {node.lineno} reaches .{node.attr}: ask the project instead")
    return found


def test_front_ends_use_the_facade_and_domain_types_only() -> None:
    found = [v for module, path in studio_modules() for v in front_end_violations(module, path.read_text("utf-8"))]
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("studio.cli.bank", "from studio.services.rubric.editing import BankEditor\n"),
        ("studio.tui.screens.review", "def later():\n    from studio.store import labels\n"),
        ("studio.cli.export", "from studio.formats.bank_writers import encode\n"),
        ("studio.tui.app", "def f(project):\n    return project.db.cursor()\n"),
        ("studio.cli.judge", "def f(project):\n    project.engine.forget_labels('x')\n"),
        ("studio.tui.app", "import studio.services.review.session\n"),
    ],
)
def test_the_front_end_rule_flags_a_back_door(module: str, source: str) -> None:
    assert front_end_violations(module, source)


def test_the_front_end_rule_accepts_the_facade_and_the_domain() -> None:
    assert not front_end_violations(
        "studio.cli.evaluate",
        "from studio import __version__\nfrom studio.services.project import Project\n"
        "from studio.domain.choices import DEFAULT_MEASURES\nfrom studio.cli.output import emit_object\n",
    )
    assert not front_end_violations("studio.cli.launch", "def f():\n    from studio.tui.app import run_studio\n")


def import_graph() -> dict[str, set[str]]:
    """Module -> the studio modules it imports (inside functions too); packages' own imports left out,
    as a package's __init__ only hands names on."""
    modules = dict(studio_modules())
    known = {m.removesuffix(".__init__") for m in modules}
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        if path.name == "__init__.py":
            continue
        package = module.rsplit(".", 1)[0]
        targets = set()
        for name in imported_names(path.read_text("utf-8"), module):
            if name in known and name not in (module, package):
                targets.add(name)
        graph[module] = targets
    return graph


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


def test_the_checker_sees_the_layers_that_exist() -> None:
    modules = [m for m, _ in studio_modules()]
    for layer in ("domain", "formats", "store", "services", "cli", "tui"):
        assert any(layer_of(m) == layer for m in modules), layer
    assert allowed_table()["domain"]["only"] == ["<stdlib>", "domain"]


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("studio.domain.models", "import duckdb\n"),
        ("studio.domain.models", "from rich.table import Table\n"),
        ("studio.formats.trec", "from ..store import database\n"),
        ("studio.formats.trec", "from studio import services\n"),
        ("studio.services.project", "def later():\n    import textual\n"),
        ("studio.store.labels", "from studio.services.project import Project\n"),
        ("studio.tui.app", "import typer\n"),
        ("studio.metrics.tau", "import duckdb\n"),
    ],
)
def test_the_checker_flags_a_forbidden_import(module: str, source: str) -> None:
    assert violations(module, source)


def test_the_checker_accepts_allowed_imports() -> None:
    assert not violations(
        "studio.formats.trec",
        "from __future__ import annotations\n"
        "import gzip\nfrom studio.domain.models import RunRow\nfrom . import jsonl\n",
    )
    assert not violations("studio.store.runs", "import duckdb\nfrom studio.formats.trec import x\n")


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


def test_pure_layers_load_no_database_ui_or_cli_library() -> None:
    result = run_python("""
        import sys
        import studio.domain, studio.formats.trec, studio.formats.banks
        loaded = [m for m in ('duckdb', 'textual', 'typer', 'rich') if m in sys.modules]
        assert not loaded, loaded
    """)
    assert result.returncode == 0, result.stderr


def test_the_command_line_loads_without_textual() -> None:
    result = run_python("""
        import sys
        import studio.cli.app
        assert 'textual' not in sys.modules
    """)
    assert result.returncode == 0, result.stderr


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
