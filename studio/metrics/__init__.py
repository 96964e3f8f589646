"""Measures and statistics on arrays and plain data (numpy/scipy): no database, no UI."""
