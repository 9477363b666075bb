"""hyblas benchmarks: run on the GPU machine; results go to benchmarks/results/ as JSON."""
