"""Version 26: the team's quarantine, and the LLM label set as a campaign planned it.

`team_quarantine` keeps aside every event pulled from the team's server that failed the gates a
local command passes (payload schema, types, scale, owned sets, plausibility): its global
identity, what it was, why it was refused and whether the server has heard of it (`reported`).
Such an event is never applied; its identity also stands in `team_events` (without a label
event), so that it is pulled once and never holds up the events after it.

`campaigns.llm_event` is the newest label event of the campaign's LLM label set when the campaign
was planned: a later event means the set changed since (a re-import, an edit), and the campaign's
report says so rather than mixing the grades the campaign kept with today's (NULL: planned before
this version, when only the pool's own grades can be compared).
"""

VERSION = 26

# A reader of a file without them does without: no quarantine, no campaign's planning mark.
READERS_NEED = False

SQL = """
        CREATE TABLE team_quarantine (
            member     VARCHAR NOT NULL,
            seq        BIGINT NOT NULL,
            kind       VARCHAR NOT NULL,    -- what the event said it was
            payload    VARCHAR NOT NULL,    -- as the server kept it
            reason     VARCHAR NOT NULL,    -- which gate refused it
            found_at   TIMESTAMP NOT NULL DEFAULT current_timestamp,
            reported   BOOLEAN NOT NULL DEFAULT false,   -- the server holds this copy's report
            PRIMARY KEY (member, seq)
        );
        ALTER TABLE campaigns ADD COLUMN llm_event BIGINT;
        """
