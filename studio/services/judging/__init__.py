"""Running LLM judges: configuration, pools, the cached and resumable run loop, stale re-runs,
re-parsing and batch files."""
