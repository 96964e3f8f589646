"""A server's base URL must not carry a secret: the judge run keeps its base URL in the project file
(to run it again as it was), while keys come only from the environment variable `--api-key-env`
names. A URL with `user:password@` or a query parameter named like a key is refused, and the
refusal never repeats the URL."""

from __future__ import annotations

import urllib.parse

from studio.domain.errors import UsageError

# Query parameters that carry a key (compared lower-cased, `-` read as `_`), and the endings of
# such names (`x_api_key`, `refresh_token`); `api-version` and the like are no secrets.
KEY_PARAMETERS = frozenset(
    {"key", "apikey", "api_key", "token", "access_token", "auth", "authorization", "secret", "password", "sig"}
)
KEY_SUFFIXES = ("_key", "_token", "_secret", "_password", "_auth")


def credentials_in(url: str) -> str | None:
    """What in `url` is a secret (`user:password@`, `query parameter api_key`), or None."""
    try:
        parts = urllib.parse.urlsplit(url)
        has_user = parts.username is not None or parts.password is not None
    except ValueError:  # a malformed netloc (the scheme check refuses it later)
        return None
    if has_user:
        return "user:password@"
    for name, _ in urllib.parse.parse_qsl(parts.query, keep_blank_values=True):
        normal = name.strip().lower().replace("-", "_")
        if normal in KEY_PARAMETERS or normal.endswith(KEY_SUFFIXES):
            return f"query parameter {name}"
    return None


def refuse_credentials(url: str | None, api_key_env: str) -> None:
    """Refuse a base URL holding a secret (UsageError), naming the environment variable to use."""
    found = credentials_in(url) if url else None
    if found is not None:
        raise UsageError(
            f"the base URL holds a credential ({found}), and the judge run would keep it in the project"
            f" file: give the server's plain URL and put the key in ${api_key_env}"
        )
