"""A team on one collection: publishing the project, joining it, syncing its events."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from studio.domain.project_file import DEFAULT_WAIT_SECONDS
from studio.domain.team import Joined, Published, QuarantineReport, SyncResult, TeamStatus
from studio.services.facade.base import PathLike, ProjectBase
from studio.services.facade.lazy import lazy_module

if TYPE_CHECKING:
    from collections.abc import Sequence

    from studio.services.team import membership
    from studio.services.team import sync as team_sync
    from studio.services.team import watch as team_watch
    from studio.services.team.watch import TeamWatch
    from studio.store.team import local
else:
    membership = lazy_module("studio.services.team.membership")
    team_sync = lazy_module("studio.services.team.sync")
    team_watch = lazy_module("studio.services.team.watch")
    local = lazy_module("studio.store.team.local")


class TeamMixin(ProjectBase):
    """The project as one copy of a team's."""

    _team_watch: TeamWatch | None = None  # made by the first `sync_if_due`

    def publish_team(self, conninfo: str, members: Sequence[str]) -> Published:
        """Publish this project to the team's PostgreSQL database (the connection's role is the
        coordinator; `members` are existing roles, who may then join)."""
        return membership.publish(self.db, conninfo, members)

    @classmethod
    def join_team(cls, path: PathLike, conninfo: str, *, wait: float = DEFAULT_WAIT_SECONDS) -> Joined:
        """Make the project file `path` from the team's published base; the member is the
        connection's role. What the team did since is pulled at once."""
        target = Path(path)
        member, info = membership.fetch_base(target, conninfo)
        with cls.open(target, wait=wait, create=False) as project:
            membership.link_member(project.db, member, info, conninfo)
            done = project.sync()
        return Joined(
            project=str(target),
            member=member,
            coordinator=info.coordinator,
            base_event=info.base_event,
            pulled=done["pulled"],
        )

    def sync(self) -> SyncResult:
        """Push this member's events not on the server yet, in order, and apply the others'."""
        return team_sync.sync(self.writes)

    def sync_if_due(self) -> SyncResult | None:
        """A sync when one is due, None otherwise: another member's events arrived (the server
        said so on the copy's listening connection), this process wrote events to send, or the
        listening connection was (re)made. Asks the server nothing when nothing is due."""
        if self._team_watch is None:
            with self.db.busy():
                link = team_sync.team_link(self.db)
            self._team_watch = team_watch.TeamWatch(self.writes, link.member, link.conninfo)
        return self._team_watch.sync() if self._team_watch.due() else None

    def close(self) -> None:
        if self._team_watch is not None:
            self._team_watch.close()
            self._team_watch = None
        super().close()

    def team_status(self) -> TeamStatus | None:
        """The team as this copy knows it (no server asked); None when the project has no team."""
        if self.team_member() is None:
            return None
        return team_sync.status(self.db)

    def team_quarantine(self) -> list[QuarantineReport]:
        """Every event a copy of the team quarantined, as the copies reported them to the server
        (the coordinator's view of the whole team; asks the server)."""
        return team_sync.server_quarantine(self.db)

    def team_member(self) -> str | None:
        """This copy's member (its PostgreSQL role), None when the project has no team."""
        found = local.link(self.db.cursor())
        return None if found is None else found.member
