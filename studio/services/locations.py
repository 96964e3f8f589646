"""Where things live: the project file, the demo project and the bundled sample data."""

from __future__ import annotations

from pathlib import Path

from studio.domain.settings import current_settings

DEFAULT_PROJECT = Path("studio.duckdb")
PACKAGE_ROOT = Path(__file__).resolve().parents[1]


def project_path(explicit: str | Path | None) -> Path:
    """--db, else $STUDIO_DB, else ./studio.duckdb."""
    if explicit is not None:
        return Path(explicit)
    return current_settings().project_file or DEFAULT_PROJECT


def user_data_dir() -> Path:
    """$XDG_DATA_HOME/studio (~/.local/share/studio when unset)."""
    return current_settings().user_data_dir


def demo_project_path(explicit: str | Path | None) -> Path:
    """The demo's project file: --db, else the user data directory (never the working folder)."""
    return Path(explicit) if explicit is not None else user_data_dir() / "demo.duckdb"


def sample_data_dir() -> Path:
    """The bundled sample data: inside the installed package, or beside it in a checkout."""
    override = current_settings().sample_data_dir
    candidates = [override] if override else []
    candidates += [PACKAGE_ROOT / "sample_data", PACKAGE_ROOT.parent / "sample_data"]
    for candidate in candidates:
        if (candidate / "topics.tsv").is_file():
            return candidate
    raise FileNotFoundError("sample data not found (looked in " + ", ".join(str(c) for c in candidates) + ")")
