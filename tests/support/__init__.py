"""Helpers the tests share: the NumPy model, hypothesis strategies, comparisons, executor
parameter sets and shaped matrices, propagation rounds, the kernel compile check's builds. No
tests here."""
