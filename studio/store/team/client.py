"""psycopg, the `[team]` extra: imported when a team command runs, never when the studio starts,
and its absence said as a usage error naming the extra."""

from __future__ import annotations

from studio.domain.errors import UsageError

INSTALL_TEAM = "pip install 'relevance-assessment-studio[team]'  (psycopg 3)"


def require_client() -> None:
    """A usage error naming the extra when psycopg is not installed."""
    try:
        import psycopg  # noqa: F401
    except ImportError as error:
        raise UsageError(f"team work needs the PostgreSQL client: {INSTALL_TEAM}") from error


def client_version() -> str | None:
    """psycopg's version, None when the [team] extra is not installed."""
    try:
        import psycopg
    except ImportError:
        return None
    return str(psycopg.__version__)
