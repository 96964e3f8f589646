"""The studio's schema on the team's PostgreSQL server, `studio_team`, versioned like the project
file: one entry per version in `SERVER_MIGRATIONS`, applied in order by the coordinator and
recorded in `studio_team.schema_version`.

Who may do what is the server's to enforce, not the studio's: the coordinator owns the schema
(publishes the base, adds members); a member may read everything and append events, nothing else
(no UPDATE, DELETE or TRUNCATE is granted on any table); row-level security, forced on the owner
too, lets a connection append only under its own role's name, and only the coordinator's append
adjudications.
"""

from __future__ import annotations

SCHEMA = "studio_team"

_V1 = f"""
    CREATE SCHEMA IF NOT EXISTS {SCHEMA};
    REVOKE ALL ON SCHEMA {SCHEMA} FROM PUBLIC;
    CREATE TABLE {SCHEMA}.schema_version (
        version     integer PRIMARY KEY,
        applied_at  timestamptz NOT NULL DEFAULT now()
    );
    -- What the coordinator published (one row).
    CREATE TABLE {SCHEMA}.team (
        one              boolean PRIMARY KEY DEFAULT true CHECK (one),
        coordinator      name NOT NULL,
        base_event       bigint NOT NULL,     -- the newest label event the base holds
        project_version  integer NOT NULL,    -- the project file's schema version of the base
        published_at     timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE {SCHEMA}.members (member name PRIMARY KEY);
    -- The base's snapshot: each file (Parquet per table, the schema's SQL) in parts.
    CREATE TABLE {SCHEMA}.base_files (
        name   text NOT NULL,
        part   integer NOT NULL,
        bytes  bytea NOT NULL,
        PRIMARY KEY (name, part)
    );
    -- Every shared event once: (member, seq) is its global identity.
    CREATE TABLE {SCHEMA}.events (
        id           bigserial PRIMARY KEY,
        member       name NOT NULL DEFAULT current_user,
        seq          bigint NOT NULL CHECK (seq > 0),
        kind         text NOT NULL CHECK (kind IN ('grade', 'adjudication', 'label', 'undo')),
        payload      jsonb NOT NULL,
        made_at      timestamp NOT NULL,
        received_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
        UNIQUE (member, seq)
    );
    ALTER TABLE {SCHEMA}.events ENABLE ROW LEVEL SECURITY;
    ALTER TABLE {SCHEMA}.events FORCE ROW LEVEL SECURITY;
    CREATE POLICY team_reads ON {SCHEMA}.events FOR SELECT USING (true);
    CREATE POLICY own_name ON {SCHEMA}.events FOR INSERT WITH CHECK (
        member = current_user
        AND (kind <> 'adjudication' OR member = (SELECT coordinator FROM {SCHEMA}.team))
    );
"""

SERVER_MIGRATIONS: list[tuple[int, str]] = [(1, _V1)]
LATEST_SERVER_VERSION = SERVER_MIGRATIONS[-1][0]

_READ = ("schema_version", "team", "members", "base_files", "events")


def grants() -> list[str]:
    """What a member is given (`{role}` is the member's role, quoted by the caller): read
    everything, append events."""
    return [
        f"GRANT USAGE ON SCHEMA {SCHEMA} TO {{role}}",
        *(f"GRANT SELECT ON {SCHEMA}.{table} TO {{role}}" for table in _READ),
        f"GRANT INSERT ON {SCHEMA}.events TO {{role}}",
        f"GRANT USAGE ON SEQUENCE {SCHEMA}.events_id_seq TO {{role}}",
    ]
