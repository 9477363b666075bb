"""hyblas benchmarks: the harness (``python -m benchmarks.run``), its peers and the experiment
modules; output goes to ./out or $OUT, and a full ``--canonical`` run's set to
benchmarks/results/ (docs/benchmarks.md)."""
