"""The operations (hyblas.ops): their semantics against the model, and their errors."""
