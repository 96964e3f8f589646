"""Checking a project file: current state against its events, references, keys, rankings and judge runs."""
