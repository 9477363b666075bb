"""Helpers the tests share: the NumPy model, hypothesis strategies, comparisons, executor
parameter sets and shaped matrices, propagation rounds. No tests here."""
