"""Test banks and the rubric methods on them: editing, generation, nuggetizing, derived scores,
coverage, diagnostics, verification and graded files."""
