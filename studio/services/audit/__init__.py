"""Audits: samples of an LLM label set with known inclusion probabilities, their gold labels, estimates."""
