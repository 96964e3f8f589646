"""A team's shared project: the project file's side (`local`, `snapshot`) and the PostgreSQL
server's (`server`, `server_schema`, through psycopg, the `[team]` extra)."""
