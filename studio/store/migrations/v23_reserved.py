"""Version 23: changes nothing here; the number belongs to a change developed beside this one.

The team tables took version 24 while 22 and 23 were given to other work not merged yet. This
module keeps the versions running 1…LATEST_VERSION without a gap until that work lands; it is
replaced by the module that holds version 23 when both are merged (a file that recorded 23 from
here gets the real 23's tables from a repair version then).
"""

VERSION = 23

READERS_NEED = False

SQL = """
        -- Nothing changes: the number belongs to a change merged separately.
        SELECT 23 AS reserved_version;
        """
