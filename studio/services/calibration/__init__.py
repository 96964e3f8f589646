"""Calibrated label sets: an LLM's grades mapped to people's grades, fitted and judged cross-fitted by topic."""
