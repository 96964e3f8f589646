"""Version 27: how a team's copy's last sync attempt ended.

`team_link.last_outcome` says whether the last attempt synced, found the server out of reach
(`offline`: the events wait, a later sync sends them) or was rejected by it (`rejected`: a login
pg_hba.conf or the password refuses, a member whose role lost its rights; nothing is exchanged
until someone fixes it), and `last_error` keeps the server's or libpq's words for the last two,
so that `studio team status` can say them without asking the server.
"""

VERSION = 27

# A reader of a file without them does without: no outcome is shown.
READERS_NEED = False

SQL = """
        ALTER TABLE team_link ADD COLUMN last_outcome VARCHAR;   -- synced | offline | rejected
        ALTER TABLE team_link ADD COLUMN last_error VARCHAR;     -- why, when not synced
        """
