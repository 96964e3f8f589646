"""Derived label sets (ensembles, calibrations, bank scores): made from their sources, kept equal to them."""
