"""A team on one collection: publishing the project to PostgreSQL, joining it, syncing events."""
