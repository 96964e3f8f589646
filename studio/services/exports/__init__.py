"""Writing what the project holds to files (qrels, judgments, banks, leaderboards), each written atomically."""
