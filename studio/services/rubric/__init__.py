"""Test banks and rubric methods: editing, generation, nuggetizing, derived scores, coverage, diagnostics."""
