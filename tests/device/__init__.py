"""The device primitives (hyblas.device): bitmap fills and scatters, segmented reductions."""
