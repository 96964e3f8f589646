"""Leaderboards under any label set, kept current through audited label edits."""
