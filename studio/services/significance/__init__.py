"""Significance tests between runs under a label set, and how two label sets' decisions agree."""
