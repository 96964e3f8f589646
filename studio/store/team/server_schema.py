"""The studio's schema on the team's PostgreSQL server, `studio_team`, versioned like the project
file: one entry per version in `SERVER_MIGRATIONS`, applied in order by the coordinator and
recorded in `studio_team.schema_version`.

Who may do what is the server's to enforce, not the studio's: the coordinator owns the schema
(publishes the base, adds members); a member may read everything and append events, nothing else
(no UPDATE, DELETE or TRUNCATE is granted on any table); row-level security, forced on the owner
too, lets a connection append only under its own role's name, and only the coordinator's append
adjudications.

Version 2 adds the quarantine (each copy reports there the events its gates refused, so the
coordinator sees every one) and a trigger that notifies `LISTEN`ing members when events arrive,
naming their members: a member waits for that instead of asking the server every second.

Every new connection checks the schema against what its version must hold (`schema_problem`): a
version newer than this studio's is refused ("update the studio"), a table or column missing is
named, before any statement could fail on it with a driver's traceback.
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

CHANNEL = "studio_team_events"  # what LISTEN waits on; the payload names the members whose events arrived

_V2 = f"""
    -- The events a copy's gates refused: who found it, whose event, why. A report is appended
    -- under the reporter's own name only.
    CREATE TABLE {SCHEMA}.quarantine (
        reporter  name NOT NULL DEFAULT current_user,
        member    name NOT NULL,
        seq       bigint NOT NULL,
        reason    text NOT NULL,
        found_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (reporter, member, seq)
    );
    ALTER TABLE {SCHEMA}.quarantine ENABLE ROW LEVEL SECURITY;
    ALTER TABLE {SCHEMA}.quarantine FORCE ROW LEVEL SECURITY;
    CREATE POLICY team_reads ON {SCHEMA}.quarantine FOR SELECT USING (true);
    CREATE POLICY own_reports ON {SCHEMA}.quarantine FOR INSERT WITH CHECK (reporter = current_user);
    CREATE FUNCTION {SCHEMA}.events_arrived() RETURNS trigger LANGUAGE plpgsql AS $body$
    DECLARE
        whose text;
    BEGIN
        SELECT string_agg(DISTINCT member::text, ' ') INTO whose FROM arrived;
        IF whose IS NOT NULL THEN
            PERFORM pg_notify('{CHANNEL}', whose);
        END IF;
        RETURN NULL;
    END
    $body$;
    CREATE TRIGGER events_arrived AFTER INSERT ON {SCHEMA}.events
        REFERENCING NEW TABLE AS arrived FOR EACH STATEMENT EXECUTE FUNCTION {SCHEMA}.events_arrived();
"""

SERVER_MIGRATIONS: list[tuple[int, str]] = [(1, _V1), (2, _V2)]
LATEST_SERVER_VERSION = SERVER_MIGRATIONS[-1][0]

# What each version's tables hold (a version holds its predecessors' too).
_V1_COLUMNS = {
    "schema_version": ("version", "applied_at"),
    "team": ("one", "coordinator", "base_event", "project_version", "published_at"),
    "members": ("member",),
    "base_files": ("name", "part", "bytes"),
    "events": ("id", "member", "seq", "kind", "payload", "made_at", "received_at"),
}
_V2_COLUMNS = {"quarantine": ("reporter", "member", "seq", "reason", "found_at")}
COLUMNS_BY_VERSION = {1: _V1_COLUMNS, 2: _V1_COLUMNS | _V2_COLUMNS}

_READ = ("schema_version", "team", "members", "base_files", "events", "quarantine")
_APPEND = ("events", "quarantine")


def schema_problem(version: int | None, columns: set[tuple[str, str]]) -> str | None:
    """What makes the server's schema unusable by this studio, as a sentence; None when nothing
    does (an older version is not a problem here: the coordinator's sync upgrades it)."""
    if version is None:
        if columns:
            return f"the team's server holds a damaged {SCHEMA} schema: its table schema_version is missing"
        return None  # nothing published yet: publishing creates it
    if version > LATEST_SERVER_VERSION:
        return (
            f"the team's server schema is version {version}, newer than this studio's {LATEST_SERVER_VERSION}:"
            " update the studio (pip install -U relevance-assessment-studio)"
        )
    expected = COLUMNS_BY_VERSION.get(version, {})
    tables = {table for table, _ in columns}
    missing = [f"table {SCHEMA}.{t}" for t in expected if t not in tables]
    missing += [
        f"column {SCHEMA}.{t}.{c}" for t, cs in expected.items() if t in tables for c in cs if (t, c) not in columns
    ]
    if missing:
        shown = ", ".join(missing[:6]) + (f" and {len(missing) - 6} more" if len(missing) > 6 else "")
        return (
            f"the team's server holds a damaged {SCHEMA} schema (version {version}): {shown} missing;"
            " the coordinator restores the database from a backup"
        )
    return None


def grants() -> list[str]:
    """What a member is given (`{role}` is the member's role, quoted by the caller): read
    everything, append events and quarantine reports."""
    return [
        f"GRANT USAGE ON SCHEMA {SCHEMA} TO {{role}}",
        *(f"GRANT SELECT ON {SCHEMA}.{table} TO {{role}}" for table in _READ),
        *(f"GRANT INSERT ON {SCHEMA}.{table} TO {{role}}" for table in _APPEND),
        f"GRANT USAGE ON SEQUENCE {SCHEMA}.events_id_seq TO {{role}}",
    ]
