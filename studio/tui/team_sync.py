"""The team's background sync: every few seconds a thread worker pushes this member's events and
pulls the others' (the project's `sync`), then posts what it found; the header's subtitle shows it
(last sync, events waiting, offline). A failure meant for a person (the server refused) is shown
there too, never as a dialog every few seconds."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual.message import Message

from studio.domain.errors import StudioError
from studio.domain.team import SyncResult
from studio.services.project import Project
from studio.tui.messages import TeamSynced

TEAM_SYNC_SECONDS = 1.0


def sync_once(project: Project, post: Callable[[Message], Any]) -> None:
    """One sync, its result (or the reason it failed) posted as a `TeamSynced`."""
    try:
        result = project.sync()
    except StudioError as error:
        post(TeamSynced(None, str(error), time.strftime("%H:%M:%S")))
        return
    post(TeamSynced(result, None, time.strftime("%H:%M:%S")))


def team_line(member: str, message: TeamSynced | None, last_reached: str | None) -> str:
    """The header's words for the team: who, when it last reached the server, what waits."""
    if message is None:
        return f"team {member}: syncing…"
    if message.result is None:
        return f"team {member}: {message.error}"
    result: SyncResult = message.result
    waiting = f"{result['waiting']} waiting"
    if result["offline"]:
        since = f", last sync {last_reached}" if last_reached else ""
        return f"team {member}: offline{since}, {waiting}"
    return f"team {member}: synced {message.at}, {waiting}"
