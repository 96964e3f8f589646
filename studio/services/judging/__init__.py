"""LLM judges: configuration, pools, the cached resumable run, stale re-runs, re-parsing, batch files."""
