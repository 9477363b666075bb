"""The benchmark harness and its peers (benchmarks/)."""
