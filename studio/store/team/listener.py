"""Waiting for the team's events instead of asking for them: a connection that `LISTEN`s on the
channel the server's trigger notifies when events arrive (`server_schema.CHANNEL`, payload: the
members whose events they are).

A listening connection costs the server nothing while nobody writes: no statement runs, the
backend sleeps on its socket. A member wakes when another member's events arrive, and its own
pushes (which notify it too) are told apart by the payload.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from studio.store.team.server import open_connection, refusal
from studio.store.team.server_schema import CHANNEL

if TYPE_CHECKING:
    from studio.store.team.server import PgConnection


class Listener:
    """One connection listening for the team's events; `close` ends it."""

    def __init__(self, conninfo: str) -> None:
        import psycopg

        self.con: PgConnection = open_connection(conninfo, autocommit=True)
        try:
            self.con.execute(f"LISTEN {CHANNEL}")
        except psycopg.Error as error:
            self.con.close()
            raise refusal(error) from None

    def wait(self, timeout: float) -> set[str]:
        """The members whose events arrived, waiting at most `timeout` seconds for the first
        notification (an empty set: none came); a lost connection raises `TeamUnreachable`."""
        import psycopg

        members: set[str] = set()
        try:
            for notice in self.con.notifies(timeout=timeout, stop_after=1):
                members.update(notice.payload.split())
            if members:  # what else arrived meanwhile, without waiting
                for notice in self.con.notifies(timeout=0.0):
                    members.update(notice.payload.split())
        except psycopg.Error as error:
            raise refusal(error) from None
        return members

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Listener:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
