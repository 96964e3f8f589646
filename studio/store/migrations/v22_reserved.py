"""Version 22: changes nothing here; the number belongs to a change developed beside this one.

The team tables took version 24 while 22 and 23 were given to other work not merged yet. This
module keeps the versions running 1…LATEST_VERSION without a gap until that work lands; it is
replaced by the module that holds version 22 when both are merged (a file that recorded 22 from
here gets the real 22's tables from a repair version then).
"""

VERSION = 22

READERS_NEED = False

SQL = """
        -- Nothing changes: the number belongs to a change merged separately.
        SELECT 22 AS reserved_version;
        """
