"""Version 14: never used; changes nothing.

Calibrations and ensembles were numbered 15 and 16 while 13 was the newest, and no migration ever
took 14. It has a module of its own so that the versions run 1…LATEST_VERSION without a gap: a
file at 13 records 14 on its way to 15; a file at 15 or later was never at 14 and is left as it
is.
"""

VERSION = 14

SQL = """
        -- Number 14 was never given to a migration: 15 and 16 were numbered past it. Nothing changes;
        -- a file at 13 records 14 on its way to 15, and a file at 15 or later never asks for it.
        SELECT 14 AS skipped_version;
        """
