"""Audits: samples with known inclusion probabilities, gold labels (graded blind: session.py), estimates."""
