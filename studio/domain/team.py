"""What the team commands answer: a publish, a join, a sync and the team's state as this copy sees it."""

from __future__ import annotations

from typing import NotRequired, TypedDict

# The kinds of event a team shares: an assessor's grade of an audit pair (grade None: taken back),
# the coordinator's adjudication, a person's label edit, and the undo of a shared event.
SHARED_KINDS = ("grade", "adjudication", "label", "undo")


class Published(TypedDict):
    coordinator: str
    members: list[str]
    base_event: int  # the newest label event the base holds
    files: int
    bytes: int
    server_schema: int


class Joined(TypedDict):
    project: str
    member: str
    coordinator: str
    base_event: int
    pulled: int


class SyncResult(TypedDict):
    """`studio sync`: what went up, what came down, what waits."""

    member: str
    pushed: int  # this member's events the server took now
    pulled: int  # others' events applied now
    waiting: int  # this member's events not on the server yet
    offline: bool  # the server could not be reached: nothing lost, the events wait
    local_only: int  # label events since the base that a team does not share (imports, judges, derived sets)
    conflicts: list[str]  # label edits two members made to one pair of a one-grade label set
    quarantined: list[str]  # pulled events this sync's gates refused: "member #seq (kind): reason"
    error: NotRequired[str]  # why the server could not be reached


class QuarantinedEvent(TypedDict):
    """A pulled event the gates refused: kept aside, never applied."""

    member: str
    seq: int
    kind: str
    reason: str
    found_at: str


class QuarantineReport(TypedDict):
    """One copy's report on the server of an event its gates refused."""

    reporter: str  # the member whose copy refused it
    member: str  # whose event it is
    seq: int
    reason: str
    found_at: str


class TeamStatus(TypedDict):
    """The team as this copy saw it at its last sync (read from the project file, no server asked)."""

    member: str
    coordinator: str
    conninfo: str  # never with a password
    last_sync: str | None
    last_attempt: str | None
    outcome: str | None  # how the last attempt ended: synced | offline | rejected (None: never tried)
    last_error: str | None  # why it did not sync: the server out of reach, or its rejection
    waiting: int  # this member's events not on the server yet (not shared yet)
    shared: dict[str, int]  # events on the server that this copy holds, per member (quarantined ones apart)
    quarantined: list[QuarantinedEvent]  # pulled events the gates refused, never applied
