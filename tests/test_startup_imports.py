"""The command line imports what a command uses (docs/design.md#6-performance-budgets: `studio
--version` within 1.5x and `studio list` within 3x `python -c "import duckdb"`; the timings are
`benchmarks/bench_startup.py`'s, never a test's). Here: which modules each loads, in a fresh
interpreter, as the `studio` program runs them.

The studio starts without scipy (about a second of imports): the statistics that need it load it
when they are asked for."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# Every test here starts a fresh interpreter: what it imports is the point.
pytestmark = pytest.mark.process

# Libraries a command loads only when it needs them: the statistics, the figures, the models, the
# TUI, the team's server.
HEAVY = ("numpy", "scipy", "matplotlib", "llama_cpp", "textual", "torch", "sentence_transformers", "psycopg")
# The studio's own families a listing has no use for.
FAMILIES = (
    "studio.metrics",
    "studio.judges",
    "studio.services.audit",
    "studio.services.evaluation",
    "studio.services.judging",
    "studio.services.meta",
    "studio.services.campaigns",
    "studio.services.review",
    "studio.services.writes",
)

RUN = """
import json, sys
from studio.cli.main import run
sys.argv = ["studio", *sys.argv[1:]]
try:
    run()
except SystemExit as done:
    code = done.code
else:
    code = 0
loaded = sorted(m for m in sys.modules)
print(json.dumps({"code": code, "modules": loaded}), file=sys.stderr)
"""


def loaded_by(*args: str) -> tuple[int, set[str]]:
    """The exit status of `studio ARGS` run in a fresh interpreter, and the modules it had loaded."""
    done = subprocess.run([sys.executable, "-c", RUN, *args], capture_output=True, text=True, check=False, timeout=120)
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["code"], set(report["modules"])


def top_level(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


def test_opening_the_studio_imports_no_scipy() -> None:
    code = "import sys, studio.tui.app, studio.cli.app; print(sorted(m for m in sys.modules if m.startswith('scipy')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "[]"


def test_the_version_loads_neither_the_command_line_nor_the_database() -> None:
    code, modules = loaded_by("--version")
    assert code == 0
    assert not top_level(modules) & {"typer", "rich", "duckdb", "pydantic", *HEAVY}
    assert not any(m.startswith("studio.") and m not in ("studio.cli", "studio.cli.main") for m in modules)


@pytest.mark.parametrize("what", [[], ["runs"], ["qrels"]])
def test_a_listing_loads_no_statistics_model_or_screen(sample: Path, what: list[str]) -> None:
    code, modules = loaded_by("--db", str(sample), "list", *what)
    assert code == 0
    assert top_level(modules) & set(HEAVY) == set()
    assert sorted(m for m in modules if m.startswith(FAMILIES)) == []
    assert "duckdb" in top_level(modules)  # not vacuous: the listing ran and read the file


def test_only_the_listing_command_module_is_loaded(sample: Path) -> None:
    _, modules = loaded_by("--db", str(sample), "list")
    commands = {m.removeprefix("studio.cli.") for m in modules if m.startswith("studio.cli.")}
    others = {"audit", "assess", "judge", "judges", "bank", "sensitivity", "significance", "estimate", "report"}
    assert "listing" in commands and not commands & others


def test_a_command_that_needs_numpy_still_gets_it(sample: Path) -> None:
    code, modules = loaded_by("--db", str(sample), "eval", "--qrels", "human", "-m", "P@10")
    assert code == 0 and "numpy" in top_level(modules)


def test_a_review_session_loads_no_audit_statistics(sample: Path) -> None:
    """The Review screen's session imports its own path (labels, the queue's Δτ): the audits'
    sampling and adjudication only when it reviews an audit's conflicts."""
    code = f"""
import sys
from studio.services.project import Project
with Project.open({str(sample)!r}) as project:
    session = project.review("human", "umbrela-smol")
    session.load()
    session.pair_view(session.upcoming(1)[0])
print(sorted(m for m in sys.modules if m.startswith(("studio.services.audit.", "studio.services.review.conflicts"))))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip().splitlines()[-1] == "['studio.services.audit.levels']"


def test_the_tui_app_loads_no_session_nor_numpy_before_a_screen_opens() -> None:
    """The TUI's messages name the sessions for the type checker only: importing the app loads no
    session (each screen imports its own as it opens) and so no numpy."""
    code = (
        "import sys, studio.tui.app; print(sorted(m for m in sys.modules if m.split('.')[0] == 'numpy'"
        " or m.endswith('.session') and m.startswith('studio.services')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "[]"


def test_a_review_and_an_edit_load_no_derivation_code_nor_masked_arrays(sample: Path) -> None:
    """Every edit passes through the follow mechanism, but only a set with followers derives one:
    the calibration, ensemble and bank-score code is imported then. And κ's categories are sorted
    without `np.unique`, which imports `numpy.ma` on its first call."""
    code = f"""
import sys
from studio.services.project import Project
with Project.open({str(sample)!r}) as project:
    session = project.review("human", "umbrela-smol")
    session.load()
    session.stats()
    pair = session.upcoming(1)[0]
    project.set_label("umbrela-smol", pair["qid"], pair["docid"], 3.0, person="ana")
print(sorted(m for m in sys.modules if m == "numpy.ma" or m.startswith(("studio.services.derived.fresh",
      "studio.services.calibration", "studio.services.ensembles", "studio.services.rubric"))))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_the_tui_app_loads_no_other_screens_domain_types() -> None:
    """The facade and the TUI's messages name the campaigns', judges', prompt studies', audits' and
    answers' types for the type checker only: each module builds its dataclasses as it loads, which
    the first screen would pay for screens it does not show."""
    others = {"campaigns", "campaign_report", "judging", "judge_results", "prompt_study", "specs", "answer_results"}
    others |= {"answer_verdicts"}
    code = "import sys, studio.tui.app; print(sorted(m for m in sys.modules if m.startswith('studio.domain.')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    loaded = {m.removeprefix("studio.domain.") for m in json.loads(done.stdout.replace("'", '"'))}
    assert "views" in loaded  # not vacuous: the app's own domain types are there
    assert loaded & others == set()
