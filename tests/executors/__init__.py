"""The executors (hyblas.executors): every registered executor against the model and the
reference, each one's own layout and walk, the policy and the trace."""
