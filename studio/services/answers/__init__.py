"""Generated answers as systems: verdict imports, answer judges, leaderboard, tournament, validation, runs' scale."""
