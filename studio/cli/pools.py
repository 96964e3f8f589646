"""`--pool` read as the judge reads it (`studio.domain.pools`): a pool it would refuse is a bad
value of the option (exit 2) before anything is opened."""

from __future__ import annotations

import typer

from studio.domain.errors import UsageError
from studio.domain.pools import POOL_FORMS, parse_pool

POOL_HELP = f"{POOL_FORMS}."


def pool(text: str) -> str:
    """`text` when it names a pool; anything else is a bad value of `--pool`."""
    try:
        parse_pool(text)
    except UsageError as error:
        raise typer.BadParameter(str(error)) from None
    return text
