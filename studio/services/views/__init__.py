"""What the screens show, read from a project and never written: overview, leaderboard, bank, estimates."""
