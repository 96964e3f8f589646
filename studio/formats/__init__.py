"""Readers and writers of the file formats the studio exchanges (pure Python, no database)."""
