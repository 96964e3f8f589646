"""Reviewing disagreements of two label sets: the session, its queues, its figures and what a pair shows."""
