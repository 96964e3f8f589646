"""Ensembles of label sets and judges' self-consistency: labels combined from several grades per pair."""
