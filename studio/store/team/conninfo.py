"""Connection strings the project file may keep: none that carries a secret.

libpq says itself which of its connection options carry one: `PQconndefaults` marks each option
with a display character, `*` for "a password field, hide the value" (`password`, `sslpassword`,
`oauth_client_secret` in libpq 18) and `D` for debug options, among which `scram_client_key` and
`scram_server_key` are keys as good as a password (libpq's documentation, "Parameter Key
Words"). The studio asks the installed libpq for its list rather than trusting one of its own,
and adds the names it knows in case an older libpq lacks them (an older libpq refuses an option
it does not know anyway). `sslkeylogfile` is refused too: it has libpq write the session's TLS
secrets to a file. A secret comes from libpq's own means instead: ~/.pgpass (`PGPASSFILE`), a
service file (`service=NAME`), or the environment (`PGPASSWORD`).
"""

from __future__ import annotations

from functools import cache

from studio.domain.errors import UsageError
from studio.store.team.client import require_client

# Known secret-bearing options, whatever the installed libpq says.
KNOWN_SECRETS = frozenset(
    {"password", "sslpassword", "oauth_client_secret", "scram_client_key", "scram_server_key", "sslkeylogfile"}
)
HIDDEN = "********"


@cache
def secret_options() -> frozenset[str]:
    """Every libpq connection option that carries a secret: the installed libpq's password fields
    (display character `*`), the SCRAM keys, and `KNOWN_SECRETS`."""
    from psycopg import pq

    marked = {
        option.keyword.decode()
        for option in pq.Conninfo.get_defaults()
        if option.dispchar == b"*" or option.keyword.decode().startswith("scram_")
    }
    return KNOWN_SECRETS | frozenset(marked)


def _parts(conninfo: str) -> dict[str, object]:
    require_client()
    import psycopg

    try:
        return dict(psycopg.conninfo.conninfo_to_dict(conninfo))
    except psycopg.ProgrammingError as error:
        raise UsageError(f"not a libpq connection string: {error}") from None


def checked_conninfo(conninfo: str) -> str:
    """The connection string as given, refused when it holds a secret (the studio keeps the
    string in the project file and prints it): the message names the options, never their values."""
    held = sorted(key for key, value in _parts(conninfo).items() if key in secret_options() and value not in (None, ""))
    if held:
        raise UsageError(
            f"the connection string holds {', '.join(held)}, which the project file would keep: put a password in"
            " ~/.pgpass (PGPASSFILE), a service file (service=NAME) or PGPASSWORD, keys and other secrets in a"
            " service file, and give the string without them"
        )
    return conninfo


def shown_conninfo(conninfo: str) -> str:
    """The connection string as it may be printed: any secret option's value hidden (a file
    written before the studio refused them may keep one)."""
    try:
        parts = _parts(conninfo)
    except UsageError:
        return conninfo
    if not any(key in secret_options() for key in parts):
        return conninfo
    return " ".join(f"{key}={HIDDEN if key in secret_options() else value}" for key, value in parts.items())
