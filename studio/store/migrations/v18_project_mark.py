"""Version 18: the studio's mark on its project files.

A one-row table naming the application tells the studio's own files from other programs' DuckDB
databases, which it refuses without writing to them. Files from before the mark hold the studio's
tables and get the mark as they are upgraded; a reader needs nothing of this version.
"""

VERSION = 18

# A studio reading a file at the version before this one needs nothing this version adds: a
# read-only file not yet upgraded to it is read as it is.
READERS_NEED = False

SQL = """
        -- Which application's project this DuckDB file is; the schema is schema_version's.
        CREATE TABLE studio_project (
            application  VARCHAR NOT NULL,
            marked_at    TIMESTAMP NOT NULL DEFAULT current_timestamp
        );
        INSERT INTO studio_project (application) VALUES ('relevance-assessment-studio');
        """
