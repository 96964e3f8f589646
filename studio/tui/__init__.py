"""The Textual app: the only layer that imports Textual."""
