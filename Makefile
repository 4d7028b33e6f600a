# Developer tasks. The benchmarks are described in scripts/bench.

.PHONY: bench bench-scale bench-reindex bench-memory bench-adopt-fs

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

# Adopt the man-page corpus (VINE_BENCH_MAN) on fresh tmpfs, ext4 and
# ext4-without-journal filesystems and on $TMPDIR; needs root.
bench-adopt-fs:
	scripts/bench adopt-fs

# Static release binaries of the vine command for every supported
# platform, with SHA-256 sums, in dist/. The engine is pure Go (SQLite
# runs as WebAssembly), so CGO is off and the binaries need nothing.
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
BINARIES := $(foreach p,$(PLATFORMS),dist/vine-$(subst /,-,$(p))$(if $(findstring windows,$(p)),.exe))

.PHONY: release clean
release: $(BINARIES)
	cd dist && sha256sum vine-* > SHA256SUMS

dist/vine-%:
	@mkdir -p dist
	GOOS=$(word 1,$(subst -, ,$(basename $*))) GOARCH=$(word 2,$(subst -, ,$(basename $*))) CGO_ENABLED=0 \
		go build -buildvcs=auto -trimpath -ldflags='-s -w' -o $@ ./adapters/cli/vine

clean:
	rm -rf dist
