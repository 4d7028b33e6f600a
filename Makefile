# Developer tasks. The benchmarks are described in scripts/bench.

.PHONY: bench bench-scale bench-reindex bench-memory

# The scale suite at 1,000 and 10,000 nodes, medians against the targets.
bench:
	scripts/bench

# The same at 100,000 nodes too (generates and indexes the forest once).
bench-scale:
	VINE_BENCH_SIZES=1000,10000,100000 scripts/bench

# Generate a 100,000-node forest and time its reindex.
bench-reindex:
	scripts/bench reindex

# Serve a 100,000-node forest, 1,000 mixed calls; peak RSS against 500 MB.
bench-memory:
	scripts/bench memory
