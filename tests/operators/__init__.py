"""The operator catalogue (hyblas.operators)."""
