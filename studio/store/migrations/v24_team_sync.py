"""Version 24: a project shared by a team through PostgreSQL.

`team_link` says that the project belongs to a team (one row): who this copy's member is (the
PostgreSQL role it connects as), who coordinates, the connection string without any password
(libpq finds that in ~/.pgpass, a service file or the environment) and the newest label event of
the published base (every event after it is the team's to share).

`team_events` gives each shared event its global identity, (member, seq): the events this member
made, numbered in the order they were made, with whether the server has acknowledged them, and
the events pulled from the others, each with the local label event that applied it. A retry sends
the same identities again and the server keeps one; an event pulled twice is applied once.
"""

VERSION = 24

# A reader of a file not yet upgraded does without: no table here, no team (the studio checks).
READERS_NEED = False

SQL = """
        CREATE TABLE team_link (
            member        VARCHAR NOT NULL,   -- this copy's PostgreSQL role
            coordinator   VARCHAR NOT NULL,
            conninfo      VARCHAR NOT NULL,   -- libpq connection string, never with a password
            base_event    BIGINT NOT NULL,    -- label events up to this one came with the published base
            published_at  TIMESTAMP,
            joined_at     TIMESTAMP NOT NULL DEFAULT current_timestamp,
            last_sync     TIMESTAMP,          -- the last time a sync reached the server
            last_attempt  TIMESTAMP           -- the last time one was tried
        );
        -- One row per shared event, this member's and the others'; (member, seq) is its global identity.
        CREATE TABLE team_events (
            member       VARCHAR NOT NULL,
            seq          BIGINT NOT NULL,
            kind         VARCHAR NOT NULL,    -- grade | adjudication | label | undo
            payload      VARCHAR NOT NULL,    -- JSON: what to apply
            label_event  BIGINT,              -- the local label event that made or applied it
            pushed       BOOLEAN NOT NULL,    -- the server has it (always true for pulled events)
            made_at      TIMESTAMP NOT NULL DEFAULT current_timestamp,
            PRIMARY KEY (member, seq)
        );
        """
