"""The team's background sync, pushed rather than polled: a few times a second a thread worker asks
the project (never the server) whether a sync is due — another member's events arrived, as the
server notified the copy's listening connection, or this studio wrote events to send — and syncs
only then, posting what it found; the header's subtitle shows it (last sync, events waiting,
offline, or rejected by the server with its reason). A failure meant for a person is shown there
too, never as a dialog; the project file taken by another command for longer than the studio
waits is no failure: the sync is tried again a moment later."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual.message import Message

from studio.domain.errors import ProjectBusy, StudioError, TeamRefused
from studio.domain.team import SyncResult
from studio.services.project import Project
from studio.tui.messages import TeamSynced

TEAM_CHECK_SECONDS = 0.25  # how often the studio asks itself whether a sync is due: no server round trip


def sync_once(project: Project, post: Callable[[Message], Any], *, force: bool = False) -> None:
    """A sync when one is due (or `force`d: another process wrote to the file), its result (or the
    reason it failed) posted as a `TeamSynced`; nothing when none is due."""
    try:
        result = project.sync() if force else project.sync_if_due()
    except ProjectBusy:
        return  # another command has the file now: the next check syncs
    except TeamRefused as error:
        post(TeamSynced(None, str(error), time.strftime("%H:%M:%S"), rejected=True))
        return
    except StudioError as error:
        post(TeamSynced(None, str(error), time.strftime("%H:%M:%S")))
        return
    if result is not None:
        post(TeamSynced(result, None, time.strftime("%H:%M:%S")))


def team_line(member: str, message: TeamSynced | None, last_reached: str | None) -> str:
    """The header's words for the team: who, when it last reached the server, what waits."""
    if message is None:
        return f"team {member}: syncing…"
    if message.result is None and message.rejected:
        reason = (message.error or "").removeprefix("rejected by the team's server: ")
        reason = reason.removeprefix("the team's server refused: ")
        return f"team {member}: rejected by the server: {reason}"
    if message.result is None:
        return f"team {member}: {message.error}"
    result: SyncResult = message.result
    waiting = f"{result['waiting']} waiting"
    if result["offline"]:
        since = f", last sync {last_reached}" if last_reached else ""
        return f"team {member}: offline{since}, {waiting}"
    return f"team {member}: synced {message.at}, {waiting}"
